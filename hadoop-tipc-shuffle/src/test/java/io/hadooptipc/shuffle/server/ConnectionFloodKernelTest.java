package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ResponseReader;
import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Floods of TIPC connections that never send a request, from another node and another process,
 * against the handler in n1: the server's sockets stay under its open-connection cap, and a
 * reducer's fetch is served while the flood's connections are still held; a flood from n3 that keeps
 * replacing its connections holds only n3's share, and a reducer in n2 is served throughout.
 */
@Tag("tipc-kernel")
class ConnectionFloodKernelTest {
    static final int FLOOD = 20_000;
    static final int CAP = 64;
    /** The server's sockets beside its TIPC connections: listeners, the topology service, the JDK's own. */
    static final int OTHER_SOCKETS = 32;
    /** n3's share of the cap in the replacing flood. */
    static final int PER_NODE = 16;
    /**
     * Connections the replacing flood keeps connecting or open: twice the cap, so most are refused. Not more:
     * under emulation the listener's queue of connects then outgrows what the server accepts within TIPC's
     * connect timeout, and every connect times out there, a reducer's too, before any cap sees it.
     */
    static final int REPLACING_HOLD = 128;
    static final int FETCHES = 5;

    @TempDir
    Path local;

    @Test
    void silentConnectionsBeyondTheCapAreClosedAtAcceptAndAFetchIsStillServed() throws Exception {
        MapOutputFixture outputs = new MapOutputFixture(local, 1, 1, 64 << 10);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(TipcShuffleConfig.MAX_OPEN_CONNECTIONS, CAP);
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        TipcShuffleHandler handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        try {
            assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
            int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
            ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName(TestbedNetwork.node(1)), port);
            TipcServiceAddress service = name.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
            Testbed.on("n2", () -> Tipc.awaitPublished(service, Duration.ofSeconds(20)));

            int before = Testbed.openSockets().size();
            AtomicInteger most = new AtomicInteger(before);
            AtomicBoolean flooding = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (flooding.get()) {
                    try {
                        most.accumulateAndGet(Testbed.openSockets().size(), Math::max);
                        Thread.sleep(10); // leaves the emulated CPUs to the server and the flood
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, "socket-sampler");
            sampler.start();
            Process flood = Testbed.exec("n2", Testbed.python(), script("silent-tipc-connections.py"),
                    Integer.toUnsignedString(service.type()),
                    Integer.toUnsignedString(service.instance()), Integer.toString(FLOOD));
            try (BufferedReader out = new BufferedReader(new InputStreamReader(flood.getInputStream(), StandardCharsets.UTF_8));
                 OutputStream hold = flood.getOutputStream()) {
                String connected = out.readLine();
                assertTrue(connected != null && connected.startsWith("connected " + FLOOD + " "),
                        "the flood connected: " + connected);
                flooding.set(false);
                sampler.join();
                TipcShuffleMetrics metrics = handler.tipcMetrics();
                System.out.printf("flood: %s; the server's sockets at most %d (%d before), %d connections closed at"
                        + " accept, %d admitted%n", connected, most.get(), before, metrics.connectionsOverCap(),
                        metrics.connections());
                assertTrue(most.get() <= before + CAP + OTHER_SOCKETS, "the server's sockets during the flood: "
                        + most.get() + ", " + before + " before it, cap " + CAP);
                assertTrue(metrics.connectionsOverCap() + metrics.connections() >= FLOOD,
                        "every flood connection was accepted: " + metrics.connectionsOverCap() + " closed at once, "
                                + metrics.connections() + " admitted");

                // The admitted silent ones are closed after stock's keep-alive timeout, freeing their places.
                long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                while (metrics.openConnections() > 0) {
                    assertTrue(System.nanoTime() < deadline, "silent connections still open: " + metrics.openConnections());
                    Thread.sleep(200);
                }
                assertServed(fetchFromN2(outputs, name, service), outputs, "the map output served during the flood");
            } finally {
                flooding.set(false);
                sampler.join();
                flood.destroy();
                flood.waitFor();
            }
        } finally {
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    /**
     * A flood from n3 that opens connections as fast as it can and replaces each the server closes, for the
     * whole test, with a small cap: it holds n3's share, and a reducer in n2 fetches over TIPC within a
     * bound of its time before the flood, on every new connection, never closed at accept.
     */
    @Test
    void aReducerOnAnotherNodeIsServedInItsNormalTimeWhileOneNodeKeepsReplacingItsFlood() throws Exception {
        MapOutputFixture outputs = new MapOutputFixture(local, 1, 1, 64 << 10);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(TipcShuffleConfig.MAX_OPEN_CONNECTIONS, CAP);
        conf.setInt(TipcShuffleConfig.MAX_OPEN_CONNECTIONS_PER_NODE, PER_NODE);
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        TipcShuffleHandler handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        try {
            assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
            int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
            ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName(TestbedNetwork.node(1)), port);
            TipcServiceAddress service = name.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
            for (String node : new String[]{"n2", "n3"}) {
                Testbed.on(node, () -> Tipc.awaitPublished(service, Duration.ofSeconds(20)));
            }
            assertServed(fetchFromN2(outputs, name, service), outputs, "a first fetch, which loads the classes");
            long normal = 0;
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                assertServed(fetchFromN2(outputs, name, service), outputs, "a fetch before the flood");
                normal = Math.max(normal, System.nanoTime() - start);
            }
            // Generous: the flood and the server share the guest's emulated CPUs with the reducer.
            long bound = Math.max(20 * normal, Duration.ofSeconds(2).toNanos());

            TipcShuffleMetrics metrics = handler.tipcMetrics();
            Process flood = Testbed.exec("n3", Testbed.python(), script("replacing-tipc-connections.py"),
                    Integer.toUnsignedString(service.type()), Integer.toUnsignedString(service.instance()),
                    Integer.toString(REPLACING_HOLD));
            try (BufferedReader out = new BufferedReader(new InputStreamReader(flood.getInputStream(),
                    StandardCharsets.UTF_8)); OutputStream running = flood.getOutputStream()) {
                assertEquals("flooding", out.readLine(), "the flood from n3 started");
                long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
                while (refused(metrics) < REPLACING_HOLD) {
                    assertTrue(System.nanoTime() < deadline, "the flood met the bounds: " + refused(metrics));
                    Thread.sleep(50);
                }
                int refusedBefore = refused(metrics);
                long slowest = 0;
                for (int i = 0; i < FETCHES; i++) {
                    long start = System.nanoTime();
                    assertServed(fetchFromN2(outputs, name, service), outputs, "fetch " + i + " during the flood");
                    slowest = Math.max(slowest, System.nanoTime() - start);
                }
                int refusedDuring = refused(metrics) - refusedBefore;
                running.close();
                String summary = out.readLine();
                System.out.printf("replacing flood from n3: %s; %d closed at accept over n3's share, %d over the cap;"
                                + " %d of them while n2 fetched; fetch before the flood at most %d ms, during it"
                                + " at most %d ms (bound %d ms)%n", summary, metrics.connectionsOverNodeCap(),
                        metrics.connectionsOverCap(), refusedDuring, normal / 1_000_000, slowest / 1_000_000,
                        bound / 1_000_000);
                assertTrue(refusedDuring > 0, "the flood went on while n2 fetched");
                assertTrue(slowest <= bound, "n2's slowest fetch during the flood took " + slowest / 1_000_000
                        + " ms, over " + bound / 1_000_000 + " ms: 20 times its slowest before it");
                assertEquals(0, metrics.connectionsOverCap(), "n3's share left the rest of the cap to others");
            } finally {
                flood.destroy();
                flood.waitFor();
            }
        } finally {
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    private static int refused(TipcShuffleMetrics metrics) {
        return metrics.connectionsOverNodeCap() + metrics.connectionsOverCap();
    }

    /** A reducer's request for map 0 from n2, bound to the socket it reached, on a new TIPC connection. */
    private static ShuffleHttp.Response fetchFromN2(MapOutputFixture outputs, ShuffleServiceName name,
                                                    TipcServiceAddress service) throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        return Testbed.on("n2", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(service)) {
                c.writeFully(ByteBuffer.wrap(ShuffleHttp.boundRequest(uri, name.toString(), outputs.key,
                        c.getPeerAddress().toString()).encode()));
                return new ResponseReader(dst -> {
                    if (!c.awaitReadable(60_000)) {
                        throw new SocketTimeoutException("nothing from the server for 60 s");
                    }
                    return c.read(dst);
                }).next();
            }
        });
    }

    private static void assertServed(ShuffleHttp.Response r, MapOutputFixture outputs, String what) {
        assertEquals(200, r.status(), what + ": " + r.text());
        assertEquals(1, r.frames().size(), what);
        CRC32C crc = new CRC32C();
        crc.update(r.frames().get(0).data());
        assertEquals(outputs.crc(0, 0), crc.getValue(), what);
    }

    private static String script(String name) throws Exception {
        return Path.of(ConnectionFloodKernelTest.class.getResource("/" + name).toURI()).toString();
    }
}
