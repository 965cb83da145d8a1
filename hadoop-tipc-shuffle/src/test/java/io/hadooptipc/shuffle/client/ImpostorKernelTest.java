package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcSocketAddress;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A process on a third node that binds our shuffle name too (testbed/tipc-shuffle-impostor.py), so that
 * the kernel hands it a share of the reducer's connections: our handler serves in n1, the reducer fetches
 * from n2, the impostor runs in n3. Whatever it does, the reducer's map outputs are right, the impostor gets
 * no map-output byte from the real server, and a fetch it answered goes on to the name's other publication,
 * the real server, over TIPC; where the impostor alone holds the name, over HTTP/TCP.
 */
@Tag("tipc-kernel")
class ImpostorKernelTest {
    static final int MAPS = 2;
    static final int PARTITION = 256 << 10;
    static final String SERVER_IP = TestbedNetwork.node(1);
    static final Path SCRIPT = Path.of("..", "testbed", "tipc-shuffle-impostor.py");
    /** Fetches, each on a connection of its own, within which the impostor must have been handed some. */
    static final int MAX_FETCHES = 40;
    /** Connections the impostor must have been handed; the kernel hands it about one in two. */
    static final int IMPOSTOR_CONNECTIONS = 3;
    /**
     * Proof timeouts, each socket's and a fetch's, short of the defaults but roomy for a guest emulated on a busy
     * host (at 3 s and 10 s the real server was cut too); the impostor's 60 s drip outlasts both.
     */
    static final long PROOF_SOCKET_MS = 10_000;
    static final long PROOF_MS = 30_000;
    /** Fetches while the whole instance range is bound. */
    static final int RANGE_FETCHES = 8;

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcShuffleHandler handler;
    static int port;
    static ShuffleServiceName name;
    /** The real server's listening socket, as the topology service reports its name's publication. */
    static TipcSocketAddress server;

    @BeforeAll
    static void serve() throws Exception {
        assumeTrue(Testbed.nodeCount() >= 3, "needs tipc-vm --nodes 3");
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
        port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        name = ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
        server = Testbed.on("n2", () -> Tipc.awaitPublished(name.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE),
                Duration.ofSeconds(20)));
    }

    @AfterAll
    static void stop() throws Exception {
        if (handler != null) {
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    /**
     * The impostor relays each connection it is handed to the real server and back: the server refuses the
     * request, which names the impostor's socket, and the reducer, which gets no reply binding, sends it to the
     * name's publications directly until the real server answers. A request it captured and replays later from
     * its own socket is refused too, and so is the same request sent to the NodeManager's HTTP/TCP port: it
     * carries no UrlHash, which stock's port would take.
     */
    @Test
    void aRelayGetsOnlyRefusalsAndItsReplayIsRefusedToo(@TempDir Path captured) throws Exception {
        int impostorFetches;
        Process impostor = impostor(TipcShuffleConfig.DEFAULT_SERVICE_TYPE, "relay", Integer.toUnsignedString(server.ref()),
                Integer.toUnsignedString(server.node()), captured.toString());
        try {
            impostorFetches = fetchUntilTheImpostorIsHanded(captured);
        } finally {
            impostor.destroy();
            impostor.waitFor();
        }
        List<Path> responses = files(captured, ".response");
        assertEquals(files(captured, ".request").size(), responses.size(),
                "a reply from the server for each relayed connection");
        assertTrue(responses.size() >= impostorFetches, responses.size() + " relayed, " + impostorFetches + " skipped");
        for (Path response : responses) {
            byte[] bytes = Files.readAllBytes(response);
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            assertTrue(text.startsWith("HTTP/1.1 401 "), response.getFileName() + ": " + text);
            assertTrue(bytes.length < 1024, "a refusal, no map output: " + bytes.length + " bytes");
            assertFalse(text.contains(ChannelBinding.REPLY_HEADER), "no proof for the impostor to pass on: " + text);
        }

        Path request = captured.resolve("1.request");
        String capturedRequest = Files.readString(request, StandardCharsets.ISO_8859_1);
        assertTrue(capturedRequest.contains(ChannelBinding.REQUEST_HEADER + ": "), "a whole request of ours: " + capturedRequest);
        Process replay = Testbed.exec("n3", Testbed.python(), SCRIPT.toString(), "replay",
                Integer.toString(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Integer.toString(name.instance()),
                Integer.toUnsignedString(server.ref()), Integer.toUnsignedString(server.node()), request.toString());
        String answer = Testbed.output(replay, Duration.ofSeconds(60));
        assertTrue(answer.startsWith("HTTP/1.1 401 "), "the replay: " + answer);
        assertTrue(answer.length() < 1024, "a refusal, no map output: " + answer.length() + " bytes");

        assertFalse(capturedRequest.contains(SecureShuffleUtils.HTTP_HEADER_URL_HASH + ":"),
                "no UrlHash to an unproven socket: " + capturedRequest);
        Process overTcp = Testbed.exec("n3", Testbed.python(), SCRIPT.toString(), "tcp-replay", SERVER_IP,
                Integer.toString(port), request.toString());
        String stockAnswer = Testbed.output(overTcp, Duration.ofSeconds(60));
        assertTrue(stockAnswer.startsWith("HTTP/1.1 401 "), "the request over HTTP/TCP: " + stockAnswer);
        assertTrue(stockAnswer.length() < 1024, "a refusal, no map output: " + stockAnswer.length() + " bytes");
    }

    /**
     * The impostor answers by itself, on the reducer's node or a third one: a 200 with bytes that are no map
     * output, which the reducer does not read; it takes the map outputs from the real server, the name's other
     * publication, over TIPC.
     */
    @ParameterizedTest
    @ValueSource(strings = {"n3", "n2"})
    void aServerWithoutTheJobTokenIsNotReadAndTheFetchGoesToTheNamesOtherPublication(String node) throws Exception {
        Process impostor = impostorIn(node, TipcShuffleConfig.DEFAULT_SERVICE_TYPE, "garbage");
        try {
            int impostorFetches = 0;
            for (int fetch = 0; fetch < MAX_FETCHES && impostorFetches < IMPOSTOR_CONNECTIONS; fetch++) {
                CountingReporter reporter = new CountingReporter();
                Testbed.on("n2", () -> fetchAndVerify(reporter, TipcShuffleConfig.DEFAULT_SERVICE_TYPE));
                impostorFetches += (int) reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED);
                assertEquals(MAPS, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "from the real server");
                assertEquals(0, reporter.get(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED));
            }
            assertEquals(IMPOSTOR_CONNECTIONS, impostorFetches, "fetches the impostor answered, of " + MAX_FETCHES);
        } finally {
            impostor.destroy();
            impostor.waitFor();
        }
    }

    /**
     * The impostor answers each connection it is handed short of the proof: a response head a byte a second, each
     * well within the read timeout (drip); a 421 naming another server; a close after the request; a 200 of its
     * own (garbage). Each such fetch is cut or walked past to the NodeManager's publication within the attempt's
     * proof timeout and is served over TIPC, with no fallback.
     */
    @ParameterizedTest
    @ValueSource(strings = {"drip", "421", "close", "garbage"})
    void everyAnswerShortOfTheProofIsWalkedPastToTheServerWithinTheProofTimeout(String mode) throws Exception {
        Process impostor = impostor(TipcShuffleConfig.DEFAULT_SERVICE_TYPE, mode);
        try {
            int impostorFetches = 0;
            long slowest = 0;
            for (int fetch = 0; fetch < MAX_FETCHES && impostorFetches < IMPOSTOR_CONNECTIONS; fetch++) {
                CountingReporter reporter = new CountingReporter();
                long start = System.nanoTime();
                Testbed.on("n2", () -> fetchAndVerify(reporter, TipcShuffleConfig.DEFAULT_SERVICE_TYPE));
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                slowest = Math.max(slowest, took);
                impostorFetches += (int) reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED);
                assertOverTipcFromTheServer(reporter, mode + " fetch " + fetch);
                assertTrue(took < PROOF_MS, mode + " fetch " + fetch + " took " + took + " ms");
            }
            System.out.printf("%s: %d fetches walked past the impostor, the slowest fetch %d ms%n", mode,
                    impostorFetches, slowest);
            assertEquals(IMPOSTOR_CONNECTIONS, impostorFetches, "fetches the impostor answered, of " + MAX_FETCHES);
        } finally {
            impostor.destroy();
            impostor.waitFor();
        }
    }

    /**
     * The impostor binds the whole instance range of our service type, which the kernel may prefer to the
     * NodeManager's one-instance publication for connections by name: it is handed connections, answers each
     * with a 200 of its own, and every fetch is still served over TIPC by the NodeManager.
     */
    @Test
    void aBinderOfTheWholeInstanceRangeIsWalkedPastAndEveryFetchStaysOnTipc(@TempDir Path dir) throws Exception {
        Path handed = dir.resolve("connections");
        Process impostor = impostor(TipcShuffleConfig.DEFAULT_SERVICE_TYPE, "range", handed.toString());
        int skipped = 0;
        try {
            for (int fetch = 0; fetch < RANGE_FETCHES; fetch++) {
                CountingReporter reporter = new CountingReporter();
                long start = System.nanoTime();
                Testbed.on("n2", () -> fetchAndVerify(reporter, TipcShuffleConfig.DEFAULT_SERVICE_TYPE));
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                skipped += (int) reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED);
                assertOverTipcFromTheServer(reporter, "fetch " + fetch);
                assertTrue(took < PROOF_MS, "fetch " + fetch + " took " + took + " ms");
            }
        } finally {
            impostor.destroy();
            impostor.waitFor();
        }
        int connections = Files.exists(handed) ? Files.readAllLines(handed).size() : 0;
        System.out.printf("range binder: handed %d connections in %d fetches, %d of them walked past it%n",
                connections, RANGE_FETCHES, skipped);
        assertTrue(connections >= 1, "the range binder was handed no connection");
        assertTrue(skipped >= 1, "no fetch walked past the range binder");
    }

    /** One fetch's map outputs all came over TIPC from the real server, and nothing fell back. */
    private static void assertOverTipcFromTheServer(CountingReporter reporter, String fetch) {
        List<String> fallbacks = new ArrayList<>();
        for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
            if (counter.isFallback() && reporter.get(counter) > 0) {
                fallbacks.add(counter.name());
            }
        }
        assertEquals(List.of(), fallbacks, fetch + ": fell back");
        assertEquals(MAPS, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), fetch + ": from the real server");
    }

    /**
     * The impostor alone holds the name the reducer looks up (under a service type no server of ours uses):
     * its answer is not read, no publication proves the job token, and the fetch goes over HTTP/TCP.
     */
    @Test
    void aNameHeldByAServerWithoutTheJobTokenAloneSendsTheFetchOverTcp() throws Exception {
        int type = TipcShuffleConfig.DEFAULT_SERVICE_TYPE + 1;
        Process impostor = impostor(type, "garbage");
        try {
            CountingReporter reporter = new CountingReporter();
            Testbed.on("n2", () -> fetchAndVerify(reporter, type));
            assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED));
            assertEquals(0, reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED));
            assertEquals(0, reporter.get(TipcShuffleCounter.TIPC_BYTES), "nothing read from the impostor");
            assertEquals(MAPS, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        } finally {
            impostor.destroy();
            impostor.waitFor();
        }
    }

    /** Starts the impostor in n3 and waits until it has bound the name under {@code type}. */
    private static Process impostor(int type, String mode, String... args) throws Exception {
        return impostorIn("n3", type, mode, args);
    }

    /** Starts the impostor in {@code node} and waits until it has bound the name under {@code type}. */
    private static Process impostorIn(String node, int type, String mode, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Testbed.python(), SCRIPT.toString(), mode,
                Integer.toString(type), Integer.toString(name.instance())));
        command.addAll(List.of(args));
        Process p = Testbed.exec(node, command.toArray(String[]::new));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"ready".equals(line)) {
            p.destroy();
            throw new AssertionError("the impostor did not start: " + line);
        }
        return p;
    }

    /**
     * Fetches from n2, each fetch on a connection and with routes of its own, until the relay has been handed
     * {@link #IMPOSTOR_CONNECTIONS}; checks every fetch's bytes and counters. Returns the fetches it was handed.
     */
    private static int fetchUntilTheImpostorIsHanded(Path captured) throws Exception {
        int skipped = 0;
        for (int fetch = 0; fetch < MAX_FETCHES && skipped < IMPOSTOR_CONNECTIONS; fetch++) {
            CountingReporter reporter = new CountingReporter();
            Testbed.on("n2", () -> fetchAndVerify(reporter, TipcShuffleConfig.DEFAULT_SERVICE_TYPE));
            skipped += (int) reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED);
            assertEquals(MAPS, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "fetch " + fetch
                    + ": from the real server over TIPC, directly or after the relay; fell back for "
                    + (reporter.get(TipcShuffleCounter.FALLBACK_CONNECT_FAILED) > 0 ? "a failed connection"
                    : reporter.get(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED) > 0 ? "no publication proving the token"
                    : "no other reason"));
            assertTrue(files(captured, ".request").size() >= skipped, "the fetches that skipped a server were relayed");
        }
        assertEquals(IMPOSTOR_CONNECTIONS, skipped, "fetches relayed by the impostor, of " + MAX_FETCHES);
        return skipped;
    }

    /**
     * One fetch of every map's partition from n2's TIPC side under the service type {@code type} (HTTP/TCP after a
     * fallback), checking each CRC.
     */
    private static Void fetchAndVerify(CountingReporter reporter, int type) throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
        TransportRoutes routes = new TransportRoutes(Transport.AUTO, Tipc.availability(), new TransferCounters(reporter));
        routes.proofBounds(PROOF_SOCKET_MS, PROOF_MS, TipcShuffleConfig.DEFAULT_UNPROVEN_HOLD_MS);
        try (routes; StreamPool streams = new StreamPool(new TipcStreamTransport(type), new TransferCounters(reporter),
                0, TipcShuffleConfig.DEFAULT_REUSE_IDLE_TIMEOUT_MS)) {
            TipcShuffleConnection c = ReducerConnections.connection(SERVER_IP, port, uri, outputs.key, routes, streams,
                    new TransferCounters(reporter));
            try {
                assertEquals(200, c.getResponseCode());
                SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH),
                        ShuffleWire.urlHash(uri, port, outputs.key), outputs.key);
                try (DataInputStream in = new DataInputStream(c.getInputStream())) {
                    for (int m = 0; m < MAPS; m++) {
                        ShuffleHeader header = new ShuffleHeader();
                        header.readFields(in);
                        byte[] data = in.readNBytes(PARTITION);
                        CRC32C crc = new CRC32C();
                        crc.update(data);
                        assertEquals(outputs.crc(m, 0), crc.getValue(), "map " + m);
                    }
                    assertEquals(-1, in.read(), "nothing after the last map output");
                }
            } finally {
                c.disconnect();
            }
        }
        return null;
    }

    /** The relay's files of one kind: {@code .request} or {@code .response}, one each per connection it was handed. */
    private static List<Path> files(Path captured, String suffix) throws Exception {
        try (Stream<Path> all = Files.list(captured)) {
            return all.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().collect(Collectors.toList());
        }
    }
}
