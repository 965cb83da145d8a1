package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcScope;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcTopologyChannel;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.URL;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The topology reports a reduce task's routes follow, from the real topology service of the
 * testbed (tipc-vm --nodes 3): a watcher (or a task's routes) on n1, a shuffle name bound and closed on n2.
 */
@Tag("tipc-kernel")
class TipcNameWatchKernelTest {
    private static final int TYPE = TipcShuffleConfig.DEFAULT_SERVICE_TYPE;

    /** Records each report as a line. */
    private static final class Reports implements NameWatch.Listener {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        @Override
        public void published(ShuffleServiceName name) {
            lines.add("published " + name);
        }

        @Override
        public void withdrawn(ShuffleServiceName name) {
            lines.add("withdrawn " + name);
        }

        @Override
        public void nodeLost(int node) {
            lines.add("lost " + Integer.toHexString(node));
        }

        String next() throws InterruptedException {
            return lines.poll(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aNameBoundOnAnotherNodeIsReportedPublishedWithdrawnAndPublishedAgain() throws Exception {
        ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName("10.99.0.2"), 13562);
        Reports reports = new Reports();
        try (TipcNameWatch watch = Testbed.on("n1", () -> TipcNameWatch.start(TYPE, reports, TipcTopologyChannel.open()))) {
            watch.watch(name);
            for (int round = 0; round < 2; round++) { // a NodeManager that stops and starts again
                TipcServerSocketChannel server = Testbed.on("n2", () -> bind(name));
                assertEquals("published " + name, reports.next());
                server.close();
                assertEquals("withdrawn " + name, reports.next());
            }
            assertNull(reports.lines.poll(1, TimeUnit.SECONDS), "nothing else: no node was lost");
        }
    }

    @Test
    void aNameAlreadyBoundIsReportedAtOnceAndOnlyTheWatchedOne() throws Exception {
        ShuffleServiceName watched = ShuffleServiceName.of(InetAddress.getByName("10.99.0.3"), 13562);
        ShuffleServiceName other = ShuffleServiceName.of(InetAddress.getByName("10.99.0.4"), 13562);
        try (TipcServerSocketChannel server = Testbed.on("n2", () -> bind(watched));
             TipcServerSocketChannel otherServer = Testbed.on("n3", () -> bind(other))) {
            Reports reports = new Reports();
            try (TipcNameWatch watch = Testbed.on("n1", () -> TipcNameWatch.start(TYPE, reports, TipcTopologyChannel.open()))) {
                watch.watch(watched);
                watch.watch(watched);
                assertEquals("published " + watched, reports.next());
                assertNull(reports.lines.poll(1, TimeUnit.SECONDS), "one report for a name watched twice");
            }
        }
    }

    @Test
    void aNodeWhoseLinksAllGoDownIsReportedLostAndItsNamesWithdrawn() throws Exception {
        // Two namespaces of their own on one veth pair, so that the testbed's nodes keep their links.
        Testbed.sh("ip netns add wa");
        Testbed.sh("ip netns add wb");
        try {
            Testbed.sh("ip link add wa0 netns wa type veth peer name wb0 netns wb");
            for (String n : new String[] {"wa", "wb"}) {
                Testbed.sh("ip -n " + n + " link set " + n + "0 up");
                Testbed.sh("ip netns exec " + n + " tipc node set identity " + n);
                Testbed.sh("ip netns exec " + n + " tipc bearer enable media eth device " + n + "0");
            }
            ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName("10.99.0.5"), 13562);
            Reports reports = new Reports();
            try (TipcNameWatch watch = Testbed.on("wa", () -> TipcNameWatch.start(TYPE, reports, TipcTopologyChannel.open()));
                 TipcServerSocketChannel server = Testbed.on("wb", () -> bind(name))) {
                watch.watch(name);
                assertEquals("published " + name, reports.next(), "once the link is up");
                int wb = Testbed.on("wb", Tipc::ownNodeAddress);
                Testbed.sh("ip netns exec wb tipc bearer disable media eth device wb0");
                assertEquals(Set.of("lost " + Integer.toHexString(wb), "withdrawn " + name),
                        Set.of(reports.next(), reports.next()));
            }
        } finally {
            Testbed.sh("ip netns del wa");
            Testbed.sh("ip netns del wb");
        }
    }

    @Test
    void aTasksRoutesFollowNamesOnTheConnectionThatFoundTheLinks() throws Exception {
        ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName("10.99.0.6"), 13562);
        URL url = new URL("http", "10.99.0.6", 13562, "/mapOutput?job=job_1_0001&reduce=0&map=m");
        CountingReporter reporter = new CountingReporter();
        try (TransportRoutes routes = Testbed.on("n1",
                () -> TransportRoutes.start(new Configuration(), new TransferCounters(reporter)));
             TipcServerSocketChannel server = Testbed.on("n2", () -> bind(name))) {
            assertEquals(name, routes.route(url).name(), "TIPC is available: links to n2 and n3 are up");
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    routes.route(url).publications() == 0 && System.nanoTime() < end; ) {
                Thread.sleep(20);
            }
            assertEquals(1, routes.route(url).publications(), "the name watch reports the bound name");
            server.close();
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    routes.route(url).fallback() == null && System.nanoTime() < end; ) {
                Thread.sleep(20);
            }
            assertEquals(Fallback.WITHDRAWN, routes.route(url).fallback());
            assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
        }
    }

    private static TipcServerSocketChannel bind(ShuffleServiceName name) throws Exception {
        TipcServerSocketChannel server = TipcServerSocketChannel.open();
        server.bind(name.tipcAddress(TYPE), TipcScope.CLUSTER);
        return server;
    }
}
