package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The topology service reports binds and unbinds on another node, and ends subscriptions. */
@Tag("tipc-kernel")
class TopologyKernelTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void bindAndUnbindOnN2AreReportedOnN1() throws Exception {
        TipcServiceRange watched = TipcServiceRange.of(20021, 0, 100);
        TipcServiceAddress name = TipcServiceAddress.of(20021, 5);
        int n2 = Testbed.on("n2", Tipc::ownNodeAddress);
        TipcTopologyChannel topology = on("n1", TipcTopologyChannel::open);
        try (topology) {
            var subscription = topology.subscribe(watched, TipcTopologyChannel.Mode.EVERY_BINDING);
            assertNull(topology.receive(Duration.ofMillis(300)), "nothing is bound yet");

            TipcServerSocketChannel server = on("n2", () -> TipcServerSocketChannel.open().bind(name));
            TipcTopologyEvent published = topology.receive(WAIT);
            assertEquals(TipcTopologyEvent.Kind.PUBLISHED, published.kind());
            assertEquals(5, published.lower());
            assertEquals(5, published.upper());
            assertEquals(n2, published.node());
            assertEquals(server.getLocalAddress(), published.socket());
            assertSame(subscription, published.subscription());

            on("n2", () -> server.unbind(name, TipcScope.CLUSTER));
            TipcTopologyEvent withdrawn = topology.receive(WAIT);
            assertEquals(TipcTopologyEvent.Kind.WITHDRAWN, withdrawn.kind());
            assertEquals(published.socket(), withdrawn.socket());

            topology.cancel(subscription);
            assertEquals(List.of(), List.copyOf(topology.subscriptions()));
            // The topology server applies a connection's requests in order, the cancel as late as it
            // likes: once a later subscription's timeout is reported, the cancel has taken effect.
            topology.subscribe(TipcServiceRange.of(20029, 0, 0), TipcTopologyChannel.Mode.EVERY_BINDING,
                    Duration.ofMillis(1));
            assertEquals(TipcTopologyEvent.Kind.TIMEOUT, topology.receive(WAIT).kind());
            on("n2", () -> server.bind(name));
            assertNull(topology.receive(Duration.ofMillis(500)), "a cancelled subscription reports nothing");
            server.close();
        }
    }

    @Test
    void existingBindingsAreReportedOnSubscribeAndTimeoutEndsTheSubscription() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20022, 1);
        try (TipcDatagramChannel bound = on("n3", () -> TipcDatagramChannel.open().bind(name, TipcScope.CLUSTER))) {
            Testbed.on("n1", () -> Tipc.awaitPublished(name, WAIT));
            on("n1", () -> {
                try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
                    topology.subscribe(TipcServiceRange.of(name), TipcTopologyChannel.Mode.EVERY_BINDING,
                            Duration.ofMillis(200));
                    TipcTopologyEvent existing = topology.receive(WAIT);
                    assertEquals(TipcTopologyEvent.Kind.PUBLISHED, existing.kind());
                    assertEquals(bound.getLocalAddress(), existing.socket());
                    assertEquals(TipcTopologyEvent.Kind.TIMEOUT, topology.receive(WAIT).kind());
                    assertEquals(List.of(), List.copyOf(topology.subscriptions()), "a timed-out subscription is forgotten");
                }
                return null;
            });
        }
    }
}
