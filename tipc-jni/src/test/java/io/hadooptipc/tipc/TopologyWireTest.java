package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** struct tipc_subscr (28 bytes) and struct tipc_event (48 bytes), host byte order. */
class TopologyWireTest {

    @Test
    void subscriptionLayout() {
        ByteBuffer b = ByteBuffer.allocate(TipcTopologyChannel.SUBSCRIPTION_SIZE);
        TipcTopologyChannel.encodeSubscription(b, TipcServiceRange.of(0x100, 2, 3), 500,
                TipcTopologyChannel.FILTER_PORTS, 0x0807060504030201L);
        byte[] expected = {0, 1, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, (byte) 0xf4, 1, 0, 0, 1, 0, 0, 0,
                1, 2, 3, 4, 5, 6, 7, 8};
        assertEquals(TipcTopologyChannel.SUBSCRIPTION_SIZE, b.position());
        assertArrayEquals(expected, b.array());
    }

    @Test
    void eventIsMatchedToItsSubscriptionByHandle() {
        var subscription = new TipcTopologyChannel.Subscription(42, TipcServiceRange.all(77),
                TipcTopologyChannel.Mode.EVERY_BINDING, Duration.ofSeconds(1));
        ByteBuffer b = ByteBuffer.allocate(TipcTopologyChannel.EVENT_SIZE).order(ByteOrder.nativeOrder());
        b.putInt(2).putInt(5).putInt(9).putInt(1234).putInt(0x1001002);
        TipcTopologyChannel.encodeSubscription(b, subscription.range(), 1000, TipcTopologyChannel.FILTER_PORTS, 42);
        assertEquals(TipcTopologyChannel.EVENT_SIZE, b.position());

        TipcTopologyEvent e = TipcTopologyChannel.decodeEvent(b, Map.of(42L, subscription));
        assertEquals(TipcTopologyEvent.Kind.WITHDRAWN, e.kind());
        assertEquals(5, e.lower());
        assertEquals(9, e.upper());
        assertEquals(TipcSocketAddress.of(1234, 0x1001002), e.socket());
        assertEquals(0x1001002, e.node());
        assertSame(subscription, e.subscription());
    }

    @Test
    void aTimeoutEventEndsItsSubscription() {
        var subscription = new TipcTopologyChannel.Subscription(43, TipcServiceRange.all(77),
                TipcTopologyChannel.Mode.FIRST_AND_LAST, Duration.ofMillis(200));
        Map<Long, TipcTopologyChannel.Subscription> known = new HashMap<>(Map.of(43L, subscription));
        ByteBuffer b = ByteBuffer.allocate(TipcTopologyChannel.EVENT_SIZE).order(ByteOrder.nativeOrder());
        b.putInt(3).putInt(0).putInt(0).putInt(0).putInt(0);
        TipcTopologyChannel.encodeSubscription(b, subscription.range(), 200, TipcTopologyChannel.FILTER_SERVICE, 43);

        TipcTopologyEvent e = TipcTopologyChannel.decodeEvent(b, known);
        assertEquals(TipcTopologyEvent.Kind.TIMEOUT, e.kind());
        assertSame(subscription, e.subscription());
        assertEquals(Map.of(), known, "the service reports nothing more for it: forgotten");
    }
}
