package io.hadooptipc.shuffle;

import io.hadooptipc.tipc.TipcScope;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ShuffleServiceNameTest {

    @Test
    void sameAddressAndPortGiveTheSameNameEverywhere() throws Exception {
        ShuffleServiceName a = new ShuffleServiceName(InetAddress.getByName("10.210.0.2"), 13562);
        ShuffleServiceName b = new ShuffleServiceName(InetAddress.getByAddress(new byte[]{10, (byte) 210, 0, 2}), 13562);
        assertEquals(a.instance(), b.instance());
        assertEquals(a.tipcAddress(18700), b.tipcAddress(18700));
        assertEquals("10.210.0.2:13562", a.toString());
        assertEquals(TipcScope.CLUSTER, a.scope());
    }

    @Test
    void neighbouringAddressesAndPortsGetDistinctInstances() throws Exception {
        Set<Integer> seen = new HashSet<>();
        for (int host = 1; host < 255; host++) {
            for (int port = 13560; port < 13570; port++) {
                seen.add(new ShuffleServiceName(InetAddress.getByName("10.0.0." + host), port).instance());
            }
        }
        assertEquals(254 * 10, seen.size());
    }

    @Test
    void loopbackIsNodeScopedAndIpv6IsBracketed() throws Exception {
        assertEquals(TipcScope.NODE, ShuffleServiceName.of(InetAddress.getByName("127.0.0.1"), 1).scope());
        assertEquals(ShuffleServiceName.of(InetAddress.getByName("127.0.0.1"), 1),
                ShuffleServiceName.of(InetAddress.getByName("127.0.1.1"), 1), "every loopback address is this host");
        assertEquals(ShuffleServiceName.of(InetAddress.getByName("::1"), 1),
                ShuffleServiceName.of(InetAddress.getByName("127.0.0.1"), 1));
        ShuffleServiceName v6 = new ShuffleServiceName(InetAddress.getByName("fd00::7"), 13562);
        assertEquals("[fd00:0:0:0:0:0:0:7]:13562", v6.toString());
        assertNotEquals(v6.instance(), new ShuffleServiceName(InetAddress.getByName("fd00::8"), 13562).instance());
        assertThrows(IllegalArgumentException.class, () -> new ShuffleServiceName(InetAddress.getByName("10.0.0.1"), 70000));
    }
}
