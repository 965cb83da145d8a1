package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.ShuffleWire;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.SecretKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.hadooptipc.shuffle.ShuffleWire.JOB;
import static io.hadooptipc.shuffle.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * ShuffleResponder mirrors the stock ShuffleChannelHandler's request checks: for the same bad
 * request it must give the stock handler's answer (status line, text, and every header stock
 * sends), with the stock handler itself answering over HTTP/TCP on loopback as the reference.
 * Runs against Hadoop 3.5 and 3.4, so an upgrade that changes stock's answers fails here.
 */
class StockRefusalsTest {
    private static final int MAPS = 2;
    private static final int REDUCES = 2;

    @TempDir
    static Path dir;
    static MapOutputFixture outputs;
    static ShuffleHandler stock;
    static int port;
    static ShuffleResponder ours;

    @BeforeAll
    static void serve() throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true); // other tests in this JVM register the stock ShuffleMetrics too
        outputs = new MapOutputFixture(dir, MAPS, REDUCES, 1000);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
        stock = new ShuffleHandler();
        stock.setAuxiliaryLocalPathHandler(outputs.localDirs());
        stock.init(conf);
        stock.start();
        stock.initializeApplication(outputs.application());
        port = ShuffleHandler.deserializeMetaData(stock.getMetaData());

        JobTokenSecretManager tokens = new JobTokenSecretManager();
        tokens.addTokenForJob(JOB, outputs.token);
        JobRegistry jobs = new JobRegistry() {
            @Override
            public SecretKey secret(String jobId) throws IOException {
                return tokens.retrieveTokenSecret(jobId);
            }

            @Override
            public String user(String jobId) {
                return JOB.equals(jobId) ? ShuffleWire.USER : null;
            }
        };
        ours = new ShuffleResponder(jobs,
                new LocalMapOutputStore(outputs.localDirs()::getLocalPathForRead, new JobConf()),
                Set.of("127.0.0.1:" + port), new ShuffleResponder.Settings(port, false, 5, false, 0),
                new TipcShuffleMetrics());
    }

    @AfterAll
    static void stop() {
        if (stock != null) {
            stock.stop();
        }
    }

    @Test
    void missingHash() throws Exception {
        assertSameAnswer(ShuffleWire.request(ShuffleWire.uri(JOB, 0, map(0)), null, null));
    }

    @Test
    void hashOfAnotherUrl() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        assertSameAnswer(ShuffleWire.request(uri, hash(ShuffleWire.uri(JOB, 0, map(1))), null));
    }

    @Test
    void unknownJob() throws Exception {
        String uri = ShuffleWire.uri("job_1700000000000_0002", 0, "attempt_1700000000000_0002_m_000000_0");
        assertSameAnswer(ShuffleWire.request(uri, hash(uri), null));
    }

    @Test
    void missingMapOutput() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0), map(MAPS));
        assertSameAnswer(ShuffleWire.request(uri, hash(uri), null));
    }

    @Test
    void reduceBeyondTheMapsPartitions() throws Exception {
        String uri = ShuffleWire.uri(JOB, REDUCES, map(0));
        assertSameAnswer(ShuffleWire.request(uri, hash(uri), null));
    }

    @Test
    void unreadableIndexFile() throws Exception {
        Path index = dir.resolve("usercache/" + ShuffleWire.USER + "/appcache/application_1700000000000_0001/output/"
                + map(1) + "/file.out.index");
        Files.delete(index);
        Files.createDirectory(index); // there, but cannot be read as a file
        String uri = ShuffleWire.uri(JOB, 0, map(1));
        assertSameAnswer(ShuffleWire.request(uri, hash(uri), null));
    }

    @Test
    void incompatibleShuffleVersion() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        HttpHead.Builder b = HttpHead.builder("GET " + uri + " HTTP/1.1");
        ShuffleWire.request(uri, hash(uri), null).fields().forEach((name, values) ->
                b.field(name, name.equals("version") ? "0.9" : values.get(0)));
        assertSameAnswer(b.build());
    }

    private static void assertSameAnswer(HttpHead request) throws Exception {
        ShuffleWire.Response expected = ShuffleWire.parse(overHttp(request));
        ShuffleResponderTest.Captured out = new ShuffleResponderTest.Captured();
        assertFalse(ours.respond(request, out), "a refused request's connection is closed");
        ShuffleWire.Response actual = ShuffleWire.parse(out.bytes());
        assertEquals(expected.head().startLine(), actual.head().startLine());
        assertEquals(expected.text(), actual.text());
        for (Map.Entry<String, List<String>> field : expected.head().fields().entrySet()) {
            assertEquals(field.getValue().get(0), actual.head().field(field.getKey()), field.getKey());
        }
    }

    /** The stock handler's whole answer: it closes the connection after a refusal. */
    private static byte[] overHttp(HttpHead request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.encode());
            out.flush();
            try (InputStream in = s.getInputStream()) {
                return in.readAllBytes();
            }
        }
    }

    private static String hash(String uri) throws IOException {
        return ShuffleWire.urlHash(uri, port, outputs.key);
    }
}
