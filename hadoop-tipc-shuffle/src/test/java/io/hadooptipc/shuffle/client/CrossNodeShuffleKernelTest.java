package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcExchange;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.SecretKey;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport across a real TIPC link: our mapreduce_shuffle handler in node n1
 * serving generated map outputs, fetches from node n2, verified by checksum.
 * Also what must be refused over TIPC, a bearer taken down mid-transfer, and fetches
 * that share one kept-alive stream.
 */
@Tag("tipc-kernel")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossNodeShuffleKernelTest {
    static final int MAPS = 8;
    static final int REDUCES = 2;
    static final int PARTITION = 4 << 20;
    static final String SERVER_IP = TestbedNetwork.node(1);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcShuffleHandler handler;
    static int port;

    @BeforeAll
    static void serve() throws Exception {
        outputs = new MapOutputFixture(local, MAPS, REDUCES, PARTITION);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
        port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        Testbed.on("n2", () -> Tipc.awaitPublished(name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE),
                Duration.ofSeconds(20)));
    }

    @AfterAll
    static void stop() throws Exception {
        MapOutputFixture.stopIn("n1", handler);
    }

    static ShuffleServiceName name() throws IOException {
        return ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
    }

    @Test
    @Order(1)
    void fetchesTensOfMegabytesAcrossTheLinkByChecksum() throws Exception {
        CountingReporter reporter = new CountingReporter();
        for (int reduce = 0; reduce < REDUCES; reduce++) {
            int r = reduce;
            Testbed.on("n2", () -> fetchAndVerify(r, allMaps(), reporter, ReducerConnections.streams(new TransferCounters(reporter), false), null));
        }
        long total = (long) MAPS * REDUCES * PARTITION;
        assertEquals(total, reporter.get(TipcShuffleCounter.TIPC_BYTES));
        assertEquals(MAPS * REDUCES, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(0, reporter.get(TipcShuffleCounter.TCP_BYTES));
        for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
            if (c.isFallback()) {
                assertEquals(0, reporter.get(c), c.name());
            }
        }
        assertEquals(total, handler.tipcMetrics().outputBytes());
    }

    @Test
    @Order(2)
    void refusesOverTipcWhatItMustRefuse() throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        String good = ShuffleWire.urlHash(uri, port, outputs.key);
        String target = name().toString();
        assertEquals(200, status(bound(uri, outputs.key, target)), "control: a good request, which carries no UrlHash");
        assertEquals(401, status(raw(ShuffleHttp.request(uri, good, target).encode())), "no channel binding");
        assertEquals(401, status(bound(uri, ShuffleWire.key("another job"), target)), "another job's token");
        String traversal = "/mapOutput?job=" + ShuffleWire.JOB + "&reduce=0&map=../../../../etc/passwd";
        assertEquals(500, status(bound(traversal, outputs.key, target)), "path traversal: no such map output, stock's answer");
        assertEquals(400, status(raw("GET / HTTP/1.1\r\nno header\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1))), "malformed HTTP");
        // Past Netty's 4,096-byte request line, yet sent whole before the server answers and closes.
        byte[] huge = ("GET /" + "x".repeat(6_000) + " HTTP/1.1\r\n").getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(400, status(raw(huge)), "oversized request line");
    }

    @Test
    @Order(3)
    void bearerDownMidTransferResumesOverTcpWithIdenticalBytes() throws Exception {
        CountingReporter reporter = new CountingReporter();
        try {
            Testbed.on("n2", () -> fetchAndVerify(0, allMaps(), reporter, ReducerConnections.streams(new TransferCounters(reporter), false), () -> {
                Process p = Testbed.exec("n2", "tipc", "bearer", "disable", "media", "eth", "device", "eth0");
                assertEquals(0, p.waitFor(), "tipc bearer disable");
            }));
        } finally {
            Testbed.exec("n2", "tipc", "bearer", "enable", "media", "eth", "device", "eth0").waitFor();
        }
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_MID_TRANSFER));
        assertTrue(reporter.get(TipcShuffleCounter.TCP_BYTES) > 0, "the tail came over TCP");
        assertEquals((long) MAPS * PARTITION,
                reporter.get(TipcShuffleCounter.TIPC_BYTES) + reporter.get(TipcShuffleCounter.TCP_BYTES));
    }

    @Test
    @Order(4)
    void fetchesFromOneHostShareOneKeptAliveStreamWithReuseOnAndEachOpensOneWithItOff() throws Exception {
        Testbed.on("n2", () -> Tipc.awaitPublished(name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE),
                Duration.ofSeconds(20)));
        int fetches = 4;
        for (boolean reuse : new boolean[] {true, false}) {
            CountingReporter reporter = new CountingReporter();
            int acceptedBefore = handler.tipcMetrics().connections();
            try (StreamPool streams = ReducerConnections.streams(new TransferCounters(reporter), reuse)) {
                for (int m = 0; m < fetches; m++) {
                    List<Integer> map = List.of(m);
                    Testbed.on("n2", () -> fetchAndVerify(0, map, reporter, streams, null));
                }
            }
            int accepted = handler.tipcMetrics().connections() - acceptedBefore;
            assertEquals(reuse ? 1 : fetches, accepted, "TIPC connections the server accepted, reuse " + reuse);
            assertEquals(accepted, reporter.get(TipcShuffleCounter.STREAMS_OPENED));
            assertEquals(reuse ? fetches - 1 : 0, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
            assertEquals(fetches, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
            assertEquals(0, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        }
    }

    private static List<Integer> allMaps() {
        return IntStream.range(0, MAPS).boxed().collect(Collectors.toList());
    }

    /** Fetches {@code maps}' partitions for {@code reduce} in one request as a fetcher in this thread's node would, checking each CRC. */
    private static Void fetchAndVerify(int reduce, List<Integer> maps, CountingReporter reporter, StreamPool streams,
                                       Interruption midway) throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, reduce, maps.stream().map(ShuffleWire::map).toArray(String[]::new));
        TransportRoutes routes = new TransportRoutes(Transport.AUTO, Tipc.availability(), new TransferCounters(reporter));
        TipcShuffleConnection c = ReducerConnections.connection(SERVER_IP, port, uri, outputs.key, routes, streams,
                new TransferCounters(reporter));
        String hash = ShuffleWire.urlHash(uri, port, outputs.key);
        c.connect();
        assertEquals(200, c.getResponseCode());
        SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, outputs.key);
        try (DataInputStream in = new DataInputStream(c.getInputStream())) {
            byte[] data = new byte[PARTITION];
            for (int m : maps) {
                ShuffleHeader header = new ShuffleHeader();
                header.readFields(in);
                in.readFully(data, 0, PARTITION / 2);
                if (m == 1 && midway != null) {
                    midway.run();
                }
                in.readFully(data, PARTITION / 2, PARTITION / 2);
                CRC32C crc = new CRC32C();
                crc.update(data);
                assertEquals(outputs.crc(m, reduce), crc.getValue(), "map " + m + " reduce " + reduce);
            }
            assertEquals(-1, in.read(), "nothing after the last map output");
        } finally {
            c.disconnect();
        }
        return null;
    }

    /** Sends raw bytes to the service over TIPC from n2 and returns everything the server sent until it closed. */
    private static byte[] raw(byte[] request) throws Exception {
        TipcServiceAddress service = name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
        return Testbed.on("n2", () -> TipcExchange.untilClosed(service, request));
    }

    /** Sends our fetcher's request, bound to the server socket it reaches, from n2; returns all the server sent. */
    private static byte[] bound(String uri, SecretKey key, String target) throws Exception {
        TipcServiceAddress service = name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
        return Testbed.on("n2", () -> TipcExchange.boundUntilClosed(service, uri, target, key));
    }

    private static int status(byte[] response) {
        String head = new String(response, 0, Math.min(response.length, 64), StandardCharsets.ISO_8859_1);
        return Integer.parseInt(head.split(" ")[1]);
    }

    @FunctionalInterface
    interface Interruption {
        void run() throws Exception;
    }
}
