package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcIslands;
import io.hadooptipc.shuffle.TipcIslandsTest;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.FirstFetches;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.tipc.TipcAvailability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URL;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The route decisions on their own, fed topology reports by hand. */
class TransportRoutesTest {
    private static final TipcAvailability TIPC_UP = new TipcAvailability(TipcAvailability.Level.CLUSTER, "test", 0, 1);

    private final CountingReporter reporter = new CountingReporter();
    private final TransportRoutes routes = new TransportRoutes(Transport.AUTO, TIPC_UP, new TransferCounters(reporter));
    private final TipcShuffleConnectionTest.WatchedNames watched = new TipcShuffleConnectionTest.WatchedNames();
    private final URL url;
    private final URL otherHost;
    private final ShuffleServiceName name;

    TransportRoutesTest() throws IOException {
        routes.follow(watched);
        url = new URL("http", "10.0.0.7", 13562, "/mapOutput?job=job_1_0001&reduce=0&map=m");
        otherHost = new URL("http", "10.0.0.8", 13562, "/mapOutput?job=job_1_0001&reduce=0&map=m");
        name = ShuffleServiceName.of(InetAddress.getByName("10.0.0.7"), 13562);
    }

    @Test
    void aHostOfAnotherIslandGoesOverTcpByChoiceWithoutATipcAttempt(@TempDir Path dir) throws IOException {
        routes.islands(TipcIslands.of(TipcIslandsTest.topology(dir, 1,
                "m1 /pod1/rack1", "10.0.0.7 /pod2/rack1", "10.0.0.8 /pod1/rack2"), "m1"));
        TransportRoutes.Route route = routes.route(url);
        assertEquals(Fallback.OTHER_ISLAND, route.fallback());
        assertNull(route.name());
        assertFalse(Fallback.OTHER_ISLAND.counter.isFallback(), "by choice, not a failure");
        assertTrue(watched.names.isEmpty(), "no TIPC name of another island is followed");

        URL sameIsland = new URL("http", "10.0.0.8", 13562, "/mapOutput?job=job_1_0001&reduce=0&map=m");
        TransportRoutes.Route tipc = routes.route(sameIsland);
        assertNull(tipc.fallback());
        assertEquals(ShuffleServiceName.of(InetAddress.getByName("10.0.0.8"), 13562), tipc.name());
    }

    @Test
    void tipcOnlyRefusesAHostOfAnotherIsland(@TempDir Path dir) throws IOException {
        TransportRoutes tipcOnly = new TransportRoutes(Transport.TIPC, TIPC_UP, new TransferCounters(reporter));
        tipcOnly.islands(TipcIslands.of(TipcIslandsTest.topology(dir, 1, "m1 /pod1/rack1", "10.0.0.7 /pod2/rack1"), "m1"));
        IOException e = assertThrows(IOException.class, () -> tipcOnly.route(url));
        assertEquals("mapreduce.shuffle.tipc.transport is tipc, but 10.0.0.7 is in TIPC island /pod2, this node in /pod1",
                e.getMessage());
    }

    @Test
    void aFailureSeenAfterTheNameCameBackDoesNotSendTheHostAway() throws IOException {
        TransportRoutes.Route before = routes.route(url);
        routes.withdrawn(name); // a NodeManager restart: withdrawn, then published again
        routes.published(name);
        routes.fellBack(before, Fallback.CONNECT_FAILED, new ConnectException("from before the restart"));

        TransportRoutes.Route after = routes.route(url);
        assertEquals(name, after.name());
        assertNull(after.fallback());
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_BACK_TO_TIPC));
    }

    @Test
    void aNameWithdrawnTwiceIsOneSwitchAndTheFirstReasonStands() throws IOException {
        TransportRoutes.Route first = routes.route(url);
        routes.fellBack(first, Fallback.MID_TRANSFER, new IOException("link lost"));
        routes.withdrawn(name); // the name goes when the link's tolerance runs out
        assertEquals(Fallback.MID_TRANSFER, routes.route(url).fallback());
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
    }

    @Test
    void aMapOutputAboveTheThresholdSendsEveryHostOverTcpForTheRestOfTheTask() throws IOException {
        routes.tcpAbove(32_768);
        TransportRoutes.Route route = routes.route(url);
        assertFalse(routes.tcpFor(route, 32_768));
        assertNull(routes.route(url).fallback(), "at the threshold TIPC goes on");

        assertTrue(routes.tcpFor(route, 32_769), "the output under way goes over TCP");
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(url).fallback());
        assertNull(routes.route(url).name());
        URL other = new URL("http", "10.0.0.8", 13562, "/mapOutput?job=job_1_0001&reduce=0&map=m");
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(other).fallback(), "a host not fetched from yet too");
        routes.withdrawn(name); // a NodeManager restart does not undo the choice
        routes.published(name);
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(url).fallback());
        assertEquals(0, reporter.get(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS), "requests are counted where they are sent");
    }

    @Test
    void firstFetchesOverTcpWaitForAMapOutputsSizeAndTheFirstSizeChooses() throws IOException {
        routes.tcpAbove(32_768);
        routes.firstFetches(FirstFetches.TCP);
        assertEquals(Fallback.SIZE_UNKNOWN, routes.route(url).fallback());
        assertFalse(Fallback.SIZE_UNKNOWN.counter.isFallback(), "by choice, not a failure");
        assertTrue(watched.names.isEmpty(), "no TIPC name is followed before TIPC is chosen");

        routes.sizeSeen("10.0.0.7", 32_768);
        assertFalse(routes.sizeUnknown());
        assertEquals(name, routes.route(url).name(), "at the threshold: TIPC");
        routes.sizeSeen("10.0.0.8", 1 << 20);
        assertNull(routes.route(url).fallback(), "only the first size chooses; a large one under way over TIPC still does");
        assertTrue(routes.tcpFor(routes.route(url), 1 << 20));
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(url).fallback());
    }

    @Test
    void aLargeFirstMapOutputKeepsEveryHostOnTcp() throws IOException {
        routes.tcpAbove(32_768);
        routes.firstFetches(FirstFetches.TCP);
        routes.sizeSeen("10.0.0.7", 32_769);
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(url).fallback());
        routes.withdrawn(name); // a NodeManager restart does not undo the choice
        routes.published(name);
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(url).fallback());
    }

    @Test
    void firstFetchesOverTcpStartTheTipcSideOnlyWhenAMapOutputShowsTheTaskSmall() throws IOException {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.set(TipcShuffleConfig.FIRST_FETCHES, "tcp");
        AtomicInteger afterStart = new AtomicInteger(); // as node loss starts: with the TIPC side
        TransportRoutes bulk = TransportRoutes.start(conf, new TransferCounters(reporter));
        bulk.whenTipcStarted(afterStart::incrementAndGet);
        assertFalse(bulk.tipcStarted(), "no native library, no topology connection before the first size");
        bulk.sizeSeen("10.0.0.7", 1 << 20);
        assertFalse(bulk.tipcStarted(), "a bulk task pays nothing for TIPC");
        assertEquals(0, afterStart.get(), "nor for acting on node loss: no host of it goes over TIPC");
        assertEquals(Fallback.LARGE_OUTPUTS, bulk.route(url).fallback());

        TransportRoutes small = TransportRoutes.start(conf, new TransferCounters(reporter));
        small.whenTipcStarted(afterStart::incrementAndGet);
        assertEquals(0, afterStart.get());
        small.sizeSeen("10.0.0.7", 2048);
        assertTrue(small.tipcStarted());
        assertEquals(1, afterStart.get(), "node loss is acted on from the TIPC side's start, before any TIPC fetch");
        conf.set(TipcShuffleConfig.FIRST_FETCHES, "tipc");
        TransportRoutes started = TransportRoutes.start(conf, new TransferCounters(reporter));
        assertTrue(started.tipcStarted());
        started.whenTipcStarted(afterStart::incrementAndGet);
        assertEquals(2, afterStart.get(), "at once where the TIPC side starts with the task");
    }

    @Test
    void aProbeGoesOverTipcWhileTheOtherFetchesWaitForItsFirstMapOutput() throws Exception {
        routes.tcpAbove(32_768);
        routes.firstFetches(FirstFetches.PROBE);
        routes.probeWait(60_000);
        assertEquals(Fallback.SIZE_UNKNOWN, routes.routeAhead(url).fallback(), "no stream opened ahead of the size");
        assertEquals(name, routes.route(url).name(), "the probe goes over TIPC");
        CompletableFuture<TransportRoutes.Route> waiting =
                CompletableFuture.supplyAsync(() -> fetchRoute(routes, otherHost));
        assertThrows(TimeoutException.class, () -> waiting.get(200, TimeUnit.MILLISECONDS), "waits for the probe");

        routes.sizeSeen("10.0.0.7", 2048);
        TransportRoutes.Route after = waiting.get(10, TimeUnit.SECONDS);
        assertNull(after.fallback(), "a small output: TIPC");
        assertEquals(ShuffleServiceName.of(InetAddress.getByName("10.0.0.8"), 13562), after.name());
    }

    @Test
    void aLargeProbeOutputSendsTheWaitingFetchesOverTcp() throws Exception {
        routes.tcpAbove(32_768);
        routes.firstFetches(FirstFetches.PROBE);
        routes.probeWait(60_000);
        TransportRoutes.Route probe = routes.route(url);
        CompletableFuture<TransportRoutes.Route> waiting =
                CompletableFuture.supplyAsync(() -> fetchRoute(routes, otherHost));
        assertFalse(routes.tcpFor(probe, 0), "between map outputs");
        assertFalse(routes.tcpFor(probe, 2048), "a small output under way chooses once it has arrived");
        assertThrows(TimeoutException.class, () -> waiting.get(200, TimeUnit.MILLISECONDS), "no size known yet");

        assertTrue(routes.tcpFor(probe, 1 << 20), "its header: the output goes over TCP");
        assertEquals(Fallback.LARGE_OUTPUTS, waiting.get(10, TimeUnit.SECONDS).fallback());
    }

    @Test
    void fetchesGoOnOverTipcWhenTheProbeShowsNoSizeInTime() throws Exception {
        routes.tcpAbove(32_768);
        routes.firstFetches(FirstFetches.PROBE);
        routes.probeWait(50);
        assertEquals(name, routes.route(url).name());
        assertNull(routes.route(otherHost).fallback(), "after the wait: as without a probe");
        assertFalse(routes.sizeUnknown());
        assertThrows(IllegalArgumentException.class, () -> routes.probeWait(0));

        TransportRoutes withoutTipc = new TransportRoutes(Transport.AUTO,
                new TipcAvailability(TipcAvailability.Level.UNAVAILABLE, "test", 97, 0), new TransferCounters(reporter));
        withoutTipc.tcpAbove(32_768);
        withoutTipc.firstFetches(FirstFetches.PROBE);
        withoutTipc.probeWait(60_000);
        assertEquals(Fallback.TIPC_UNAVAILABLE, withoutTipc.route(url).fallback());
        assertEquals(Fallback.TIPC_UNAVAILABLE, CompletableFuture.supplyAsync(() -> fetchRoute(withoutTipc, otherHost))
                .get(10, TimeUnit.SECONDS).fallback(), "no probe to wait for");

        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.set(TipcShuffleConfig.FIRST_FETCHES, "probe");
        try (TransportRoutes started = TransportRoutes.start(conf, new TransferCounters(reporter))) {
            assertTrue(started.tipcStarted(), "the probe needs the TIPC side from the task's start");
        }
    }

    private static TransportRoutes.Route fetchRoute(TransportRoutes of, URL to) {
        try {
            return of.route(to);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void firstFetchesOverTcpTakeAThresholdAndTheAutoTransport() throws IOException {
        routes.firstFetches(FirstFetches.TCP); // tcp.above-bytes 0: every size on TIPC
        assertNull(routes.route(url).fallback());
        TransportRoutes tipcOnly = new TransportRoutes(Transport.TIPC, TIPC_UP, new TransferCounters(reporter));
        tipcOnly.tcpAbove(32_768);
        tipcOnly.firstFetches(FirstFetches.TCP);
        assertNull(tipcOnly.route(url).fallback(), "transport=tipc sends nothing over TCP");
        routes.tcpAbove(32_768);
        routes.firstFetches(FirstFetches.TIPC);
        assertNull(routes.route(url).fallback(), "the default: first fetches over TIPC");
    }

    @Test
    void noThresholdOrTipcOnlyKeepsEverySizeOnTipc() throws IOException {
        TransportRoutes.Route route = routes.route(url);
        assertFalse(routes.tcpFor(route, 1L << 30));
        assertNull(routes.route(url).fallback(), "0, the routes' own default: never");

        TransportRoutes tipcOnly = new TransportRoutes(Transport.TIPC, TIPC_UP, new TransferCounters(reporter));
        tipcOnly.tcpAbove(32_768);
        TransportRoutes.Route only = tipcOnly.route(url);
        assertFalse(tipcOnly.tcpFor(only, 1L << 30));
        assertNull(tipcOnly.route(url).fallback(), "transport=tipc sends nothing over TCP");
    }

    @Test
    void aFailureKeepsItsReasonAndItsWayBackOverALargeOutputsChoice() throws IOException {
        routes.tcpAbove(32_768);
        TransportRoutes.Route route = routes.route(url);
        routes.fellBack(route, Fallback.CONNECT_FAILED, new ConnectException("refused"));
        assertTrue(routes.tcpFor(route, 100_000)); // a body that was already on its way
        assertEquals(Fallback.CONNECT_FAILED, routes.route(url).fallback());
        routes.published(name);
        assertEquals(Fallback.LARGE_OUTPUTS, routes.route(url).fallback());
    }

    @Test
    void aNegativeThresholdIsRefusedWithTheKeyNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> routes.tcpAbove(-1));
        assertTrue(e.getMessage().contains("mapreduce.shuffle.tipc.tcp.above-bytes"), e.getMessage());
    }

    @Test
    void aLostPeerIsCountedAndClosingTheRoutesClosesTheTopologyConnection() throws IOException {
        routes.nodeLost(0x6e320000);
        assertEquals(1, reporter.get(TipcShuffleCounter.TIPC_PEERS_LOST));
        routes.close();
        assertTrue(watched.closed);
    }
}
