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
 * A flood of TIPC connections that never send a request, from another node and another process,
 * against the handler in n1: the server's sockets stay under its open-connection cap, and a
 * reducer's fetch is served while the flood's connections are still held.
 */
@Tag("tipc-kernel")
class ConnectionFloodKernelTest {
    static final int FLOOD = 20_000;
    static final int CAP = 64;
    /** The server's sockets beside its TIPC connections: listeners, the topology service, the JDK's own. */
    static final int OTHER_SOCKETS = 32;

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
            Process flood = Testbed.exec("n2", Testbed.python(), script(),
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
                String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
                ShuffleHttp.Response r = Testbed.on("n2", () -> {
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
                assertEquals(200, r.status(), r.text());
                assertEquals(1, r.frames().size());
                CRC32C crc = new CRC32C();
                crc.update(r.frames().get(0).data());
                assertEquals(outputs.crc(0, 0), crc.getValue(), "the map output served during the flood");
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

    private static String script() throws Exception {
        return Path.of(ConnectionFloodKernelTest.class.getResource("/silent-tipc-connections.py").toURI()).toString();
    }
}
