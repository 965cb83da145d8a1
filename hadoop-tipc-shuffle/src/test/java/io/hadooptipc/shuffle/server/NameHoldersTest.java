package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcSocketAddress;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class NameHoldersTest {
    static final TipcSocketAddress LISTENER = TipcSocketAddress.of(7, 0x1001);
    static final TipcSocketAddress IMPOSTOR = TipcSocketAddress.of(9, 0x1002);
    static final TipcSocketAddress SECOND_IMPOSTOR = TipcSocketAddress.of(11, 0x1001);

    final ShuffleServiceName eth = name("10.0.0.7");
    final ShuffleServiceName loopback = name("127.0.0.1");
    final List<String> actions = new ArrayList<>();
    final NameHolders.Actions recorder = new NameHolders.Actions() {
        @Override
        public void otherHolder(ShuffleServiceName name, TipcSocketAddress holder) {
            actions.add("other " + name + " " + holder);
        }

        @Override
        public void holderLeft(ShuffleServiceName name, TipcSocketAddress holder) {
            actions.add("left " + name + " " + holder);
        }
    };
    final NameHolders holders = new NameHolders(LISTENER, Arrays.asList(eth, loopback), recorder);

    @Test
    void theListenerItselfIsNoOtherHolder() {
        holders.published(eth.instance(), LISTENER);
        holders.published(loopback.instance(), LISTENER);
        assertEquals(Collections.emptyList(), actions);
        assertEquals(0, holders.otherHolders());
    }

    @Test
    void everyOtherSocketOnAnyNodeIsReportedOnceAndCountedUntilItLeaves() {
        holders.published(eth.instance(), LISTENER);
        holders.published(eth.instance(), IMPOSTOR);
        holders.published(eth.instance(), IMPOSTOR); // a second range of the same socket covering the name
        holders.published(loopback.instance(), SECOND_IMPOSTOR);
        assertEquals(2, holders.otherHolders());
        holders.withdrawn(eth.instance(), IMPOSTOR);
        assertEquals(1, holders.otherHolders());
        assertEquals(Arrays.asList("other " + eth + " " + IMPOSTOR, "other " + loopback + " " + SECOND_IMPOSTOR,
                "left " + eth + " " + IMPOSTOR), actions);
    }

    @Test
    void aSocketBindingSeveralNamesIsOneHolder() {
        holders.published(eth.instance(), IMPOSTOR);
        holders.published(loopback.instance(), IMPOSTOR);
        assertEquals(1, holders.otherHolders());
        holders.withdrawn(eth.instance(), IMPOSTOR);
        assertEquals(1, holders.otherHolders());
        holders.withdrawn(loopback.instance(), IMPOSTOR);
        assertEquals(0, holders.otherHolders());
    }

    @Test
    void holdersBeforeTheListenerAreReportedAndItsOwnComingAndGoingIsNot() {
        holders.published(eth.instance(), IMPOSTOR); // bound before the NodeManager started
        holders.published(eth.instance(), LISTENER);
        holders.withdrawn(eth.instance(), LISTENER);
        holders.withdrawn(eth.instance(), IMPOSTOR);
        assertEquals(Arrays.asList("other " + eth + " " + IMPOSTOR, "left " + eth + " " + IMPOSTOR), actions);
        assertEquals(0, holders.otherHolders());
    }

    @Test
    void reportsOfOtherNamesAndOfSocketsNeverSeenChangeNothing() {
        holders.published(name("10.0.0.8").instance(), IMPOSTOR);
        holders.withdrawn(eth.instance(), IMPOSTOR);
        assertEquals(Collections.emptyList(), actions);
        assertEquals(0, holders.otherHolders());
    }

    @Test
    void twoNamesOfOneInstanceAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new NameHolders(LISTENER, Arrays.asList(eth, name("10.0.0.7")), recorder));
    }

    private static ShuffleServiceName name(String address) {
        try {
            return ShuffleServiceName.of(InetAddress.getByName(address), 13562);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
