package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcExchange;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TlsMaterial;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Encrypted shuffle over real TIPC: our handler in node n1 with {@code mapreduce.shuffle.ssl.enabled}
 * (a self-signed certificate for its address) serves TLS over TIPC, and a reducer in n2 with the
 * job's client SSL settings fetches over TIPC in TLS, counted as TIPC, not as a fallback.
 */
@Tag("tipc-kernel")
class TlsOverTipcKernelTest {
    static final int MAPS = 2;
    static final int PARTITION = 1 << 20;
    static final String SERVER_IP = TestbedNetwork.node(1);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TlsMaterial material;
    static TipcShuffleHandler handler;
    static int port;

    @BeforeAll
    static void serve() throws Exception {
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        material = TlsMaterial.forHost(SERVER_IP);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        material.serverConf(conf, material.server);
        handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        assertTrue(handler.isServingTipc(), "with encrypted shuffle required, the handler in n1 serves TIPC");
        port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        Testbed.on("n2", () -> Tipc.awaitPublished(service(), Duration.ofSeconds(20)));
    }

    @AfterAll
    static void stop() throws Exception {
        MapOutputFixture.stopIn("n1", handler);
    }

    @Test
    void aReducerFetchesInTlsOverTipcOnOneKeptAliveStreamWithoutFallingBack() throws Exception {
        CountingReporter reporter = new CountingReporter();
        TransferCounters counters = new TransferCounters(reporter);
        JobConf job = new JobConf();
        material.clientConf(job);
        SSLFactory ssl = new SSLFactory(SSLFactory.Mode.CLIENT, job);
        ssl.init();
        TransportRoutes routes = new TransportRoutes(Transport.AUTO, Testbed.on("n2", Tipc::availability), counters);
        try (StreamPool streams = new StreamPool(new TlsTransport(
                new TipcStreamTransport(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), ssl, counters), counters, 1, 60_000)) {
            for (int m = 0; m < MAPS; m++) {
                int map = m;
                Testbed.on("n2", () -> fetchAndVerify(map, routes, streams, counters));
            }
        } finally {
            ssl.destroy();
        }
        assertEquals((long) MAPS * PARTITION, reporter.get(TipcShuffleCounter.TIPC_BYTES));
        assertEquals(MAPS, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
            if (c.isFallback()) {
                assertEquals(0, reporter.get(c), c.name());
            }
        }
        assertEquals(1, reporter.get(TipcShuffleCounter.TLS_STREAMS), "one handshake");
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_OPENED));
        assertEquals(MAPS - 1, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertEquals(MAPS, handler.tipcMetrics().outputsOk(), "served over TIPC");
    }

    @Test
    void aPlaintextRequestOverTipcGetsNoResponse() throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        TipcServiceAddress service = service();
        byte[] answer = Testbed.on("n2", () -> TipcExchange.boundUntilClosed(service, uri, name().toString(),
                outputs.key));
        String text = new String(answer, StandardCharsets.ISO_8859_1);
        assertFalse(text.startsWith("HTTP/"), "no HTTP response to plaintext: " + text);
        assertTrue(answer.length < 1024, "at most a TLS alert: " + answer.length + " bytes");
    }

    /** Fetches one map's partition for reduce 0 in this thread's node, checking its CRC, and reads the body to its end. */
    private static Void fetchAndVerify(int map, TransportRoutes routes, StreamPool streams, TransferCounters counters)
            throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(map));
        TipcShuffleConnection c = ReducerConnections.connection(SERVER_IP, port, uri, outputs.key, routes, streams, counters);
        String hash = ShuffleWire.urlHash(uri, port, outputs.key);
        try {
            assertEquals(200, c.getResponseCode());
            SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, outputs.key);
            try (DataInputStream in = new DataInputStream(c.getInputStream())) {
                new ShuffleHeader().readFields(in);
                byte[] data = in.readNBytes(PARTITION);
                CRC32C crc = new CRC32C();
                crc.update(data);
                assertEquals(outputs.crc(map, 0), crc.getValue(), "map " + map);
                assertEquals(-1, in.read(), "nothing after the map output");
            }
        } finally {
            c.disconnect();
        }
        return null;
    }

    private static ShuffleServiceName name() throws Exception {
        return ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
    }

    private static TipcServiceAddress service() throws Exception {
        return name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
    }
}
