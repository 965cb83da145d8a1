package io.hadooptipc.shuffle.client;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Structure;
import io.hadooptipc.shuffle.ResponseReader;
import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.shuffle.server.TipcShuffleServer;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.netty.handler.codec.http.HttpObjectDecoder;
import org.apache.commons.codec.binary.Base64;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TIPC server's connection handling against a real kernel: pipelined requests,
 * garbage after a kept-alive request, reducers that stop reading, the connection
 * limit, an acceptor out of file descriptors and a fuzz run, with the handler in
 * node n1 and reducers in node n2.
 */
@Tag("tipc-kernel")
class ServerConnectionKernelTest {
    static final int MAPS = 4;
    static final int PARTITION = 4 << 20;
    static final int WRITE_TIMEOUT_MS = 15_000;
    static final String SERVER_IP = TestbedNetwork.node(1);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcShuffleHandler handler;
    static int port;

    @BeforeAll
    static void serve() throws Exception {
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        conf.setInt(TipcShuffleConfig.WRITE_TIMEOUT_MS, WRITE_TIMEOUT_MS);
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_CONNECTIONS, 3);
        handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
        port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        Testbed.on("n2", () -> Tipc.awaitPublished(service(), Duration.ofSeconds(20)));
    }

    /** Whatever a test did, the server lets go of every connection its reducers closed. */
    @AfterEach
    void noConnectionLeftOpen() throws Exception {
        assertEquals(0, await(() -> handler.tipcMetrics().openConnections(), 0), "open TIPC connections after the test");
    }

    @AfterAll
    static void stop() throws Exception {
        MapOutputFixture.stopIn("n1", handler);
    }

    @Test
    void answersPipelinedRequestsInOrderAndGarbageAfterThemWith400() throws Exception {
        try (Responses in = new Responses(connect())) {
            in.channel.writeFully(ByteBuffer.wrap(ShuffleWire.concat(request(in, 0), request(in, 1),
                    "\u0000\u0001 not HTTP\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1))));
            assertFrame(in.next(), 0);
            assertFrame(in.next(), 1);
            assertEquals(400, in.next().status(), "garbage after two kept-alive requests");
        }
    }

    @Test
    void aConnectionOverTheLimitGets429AndStalledReducersBlockNobodyAndAreClosedAfterTheWriteTimeout() throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
        try (Responses stalledA = new Responses(connect()); Responses stalledB = new Responses(connect());
             Responses reading = new Responses(connect())) {
            // As many reducers that never read as the server has threads.
            for (Responses stalled : new Responses[] {stalledA, stalledB}) {
                stalled.channel.writeFully(ByteBuffer.wrap(ShuffleHttp.boundRequest(uri, name().toString(),
                        outputs.key, stalled.channel.getPeerAddress().toString()).encode()));
                assertTrue(stalled.channel.awaitReadable(60_000), "the server answers");
            }
            long stalledAt = System.nanoTime();
            CountingReporter reporter = new CountingReporter();
            TipcShuffleConnection refused = connection(uri, reporter);
            int status = Testbed.on("n2", () -> {
                refused.connect();
                return refused.getResponseCode();
            });
            assertEquals(429, status, "three connections are open, the limit");
            assertEquals(1000, refused.getHeaderFieldLong("Retry-After", -1), "stock's back-off");
            assertEquals(name().toString(), refused.getHeaderField(TipcShuffleConfig.SERVER_HEADER));
            for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
                if (c.isFallback()) {
                    assertEquals(0, reporter.get(c), c.name() + ": a 429 is the fetcher's to handle");
                }
            }
            refused.disconnect();

            reading.channel.writeFully(ByteBuffer.wrap(request(reading, 1)));
            assertFrame(reading.next(), 1);
            assertTrue(handler.tipcMetrics().openConnections() >= 3, "served while both stalled reducers are held");

            Thread.sleep(Math.max(0, WRITE_TIMEOUT_MS + 2_000 - Duration.ofNanos(System.nanoTime() - stalledAt).toMillis()));
            long whole = 1024; // a request's size: any response to it is far longer than this
            for (Responses stalled : new Responses[] {stalledA, stalledB}) {
                long got = stalled.drain();
                assertTrue(got > whole && got < (long) MAPS * PARTITION,
                        "the stalled connection was closed part-way: " + got + " bytes");
            }
            long closedAfter = Duration.ofNanos(System.nanoTime() - stalledAt).toMillis();
            assertTrue(closedAfter < WRITE_TIMEOUT_MS + 30_000, "stalled connections closed after " + closedAfter + " ms");
        }
    }

    @Test
    void acceptOutOfFileDescriptorsBacksOffAndServesOnceItCan() throws Exception {
        TipcServiceAddress service = service();
        List<TipcSocketChannel> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // their descriptors exist before the limit drops; connecting needs none
            clients.add(Testbed.on("n2", TipcSocketChannel::open));
        }
        try {
            // Threads of n2 enter its namespace through a descriptor: have them ready before the limit drops.
            CountDownLatch ready = new CountDownLatch(clients.size());
            List<Future<Object>> warm = new ArrayList<>();
            for (int i = 0; i < clients.size(); i++) {
                warm.add(Testbed.start("n2", () -> {
                    ready.countDown();
                    ready.await();
                    return null;
                }));
            }
            for (Future<Object> f : warm) {
                Testbed.get(f);
            }
            RLimit saved = new RLimit();
            LIBC.getrlimit(RLIMIT_NOFILE, saved);
            List<Future<Boolean>> connects = new ArrayList<>();
            RLimit tight = new RLimit();
            tight.max = saved.max;
            tight.cur = lowestFreeDescriptor(); // a new descriptor takes the lowest free number: none is left
            LIBC.setrlimit(RLIMIT_NOFILE, tight);
            try {
                for (TipcSocketChannel c : clients) {
                    connects.add(Testbed.start("n2", () -> c.connect(service)));
                }
                Thread.sleep(2_000); // the acceptor meets EMFILE, more than once
            } finally {
                LIBC.setrlimit(RLIMIT_NOFILE, saved);
            }
            for (int i = 0; i < clients.size(); i++) {
                assertTrue(Testbed.get(connects.get(i)), "accepted once descriptors are free again");
                try (Responses in = new Responses(clients.get(i))) {
                    in.channel.writeFully(ByteBuffer.wrap(request(in, i)));
                    assertFrame(in.next(), i);
                }
            }
        } finally {
            for (TipcSocketChannel c : clients) {
                c.close();
            }
        }
    }

    @Test
    void survivesMalformedAndTruncatedRequestsWithStableSocketsAndThreads() throws Exception {
        Map<String, Integer> outcomes = new TreeMap<>();
        fuzz(FUZZ_CLIENTS * FUZZ_BATCH, 0, outcomes); // warm-up: the n2 client threads and the server's workers exist
        // What the server holds, not the JVM's: a jar opened or a JIT or GC thread started under load is no leak.
        long sockets = await(ServerConnectionKernelTest::openSockets, -1);
        long threads = serverThreads();
        assertTrue(threads > 0, "the servers' threads are found by name");

        int sent = FUZZ_CLIENTS * FUZZ_BATCH;
        for (int seed = 1; sent < FUZZ_REQUESTS; seed++, sent += FUZZ_CLIENTS * FUZZ_BATCH) {
            fuzz(FUZZ_CLIENTS * FUZZ_BATCH, seed * FUZZ_CLIENTS, outcomes);
        }
        System.out.printf("fuzz: %d requests, outcomes %s%n", sent, outcomes);
        for (String outcome : outcomes.keySet()) {
            assertTrue(FUZZ_ANSWERS.contains(outcome), "outcome " + outcome + " of " + outcomes);
        }
        assertTrue(outcomes.getOrDefault("400", 0) > sent / 10, "most garbage is refused with 400: " + outcomes);
        assertEquals(sockets, await(ServerConnectionKernelTest::openSockets, sockets),
                "open sockets after " + sent + " requests");
        assertEquals(threads, serverThreads(), "the servers' event loop threads after " + sent + " requests");
        try (Responses in = new Responses(connect())) {
            in.channel.writeFully(ByteBuffer.wrap(request(in, 2)));
            assertFrame(in.next(), 2);
        }
    }

    /** Requests of the fuzz run: system property tipc.fuzz.requests; 20,000 by default, about 3 minutes here. */
    static final int FUZZ_REQUESTS = Integer.getInteger("tipc.fuzz.requests", 20_000);
    static final int FUZZ_CLIENTS = 4;
    static final int FUZZ_BATCH = 500;
    /**
     * What a fuzzed request may get: a status the stock handler uses (200 only where the request
     * line's method and URI and the UrlHash are as signed, see {@link #signed}; 429 when the fuzz's
     * four connections meet the limit of three), 421 for a target that is not this server;
     * control characters alone, and a head cut short, are no request to Netty, and are closed after
     * the request timeout.
     */
    static final Set<String> FUZZ_ANSWERS = Set.of("200", "400", "401", "405", "421", "429", "500",
            "closed while sending", "closed without an answer", "closed by the reducer mid-head");

    /** Sends {@code requests} fuzzed requests from {@link #FUZZ_CLIENTS} client threads in n2. */
    private static void fuzz(int requests, int seed, Map<String, Integer> outcomes) throws Exception {
        List<Future<Map<String, Integer>>> clients = new ArrayList<>();
        for (int c = 0; c < FUZZ_CLIENTS; c++) {
            Random random = new Random(seed + c);
            clients.add(Testbed.start("n2", () -> {
                Map<String, Integer> seen = new HashMap<>();
                for (int i = 0; i < requests / FUZZ_CLIENTS; i++) {
                    seen.merge(fuzzOnce(random), 1, Integer::sum);
                }
                return seen;
            }));
        }
        for (Future<Map<String, Integer>> c : clients) {
            Testbed.get(c).forEach((k, v) -> outcomes.merge(k, v, Integer::sum));
        }
    }

    /** One connection with one malformed, mutated or truncated request; the status line it got, or why none. */
    private static String fuzzOnce(Random random) throws IOException {
        try (TipcSocketChannel channel = TipcSocketChannel.open(service())) {
            // Bound to this connection's server socket, as our fetcher binds it: unchanged, it is served.
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(1));
            byte[] valid = ShuffleHttp.boundRequest(uri, name().toString(), outputs.key,
                    channel.getPeerAddress().toString()).encode();
            return fuzzOnce(random, valid, channel);
        }
    }

    private static String fuzzOnce(Random random, byte[] valid, TipcSocketChannel channel) {
        int head = valid.length - 4; // a complete head ends in CRLF CRLF: keep it so the server answers at once
        byte[] bytes;
        int split = 0;
        boolean cutShort = false;
        switch (random.nextInt(5)) {
            case 0:
                // bytes that are no request at all
                bytes = new byte[1 + random.nextInt(512)];
                random.nextBytes(bytes);
                bytes = ShuffleWire.concat(bytes, CRLF2);
                break;
            case 1:
                // a few bytes of a good request changed
                bytes = valid.clone();
                for (int k = 1 + random.nextInt(4); k > 0; k--) {
                    bytes[random.nextInt(head)] = (byte) random.nextInt(256);
                }
                break;
            case 2:
                // a good request cut anywhere: the rest sent after the first part, or never
                split = 1 + random.nextInt(valid.length - 1);
                int kind = random.nextInt(200);
                // Left open (kind 0), a head cut short is answered by the request timeout (5 s): a few such
                // only. Closed at once (kind 50 and up), the close comes with the last bytes, which the
                // server must see. Completed, it is a 200 whose map output the reducer leaves unread.
                bytes = kind == 0 || kind >= 50 ? Arrays.copyOf(valid, split) : valid;
                cutShort = kind >= 50;
                break;
            case 3:
                // a part of the head repeated or left out
                int from = random.nextInt(head);
                int to = from + random.nextInt(head - from);
                bytes = random.nextBoolean()
                        ? ShuffleWire.concat(Arrays.copyOf(valid, to), Arrays.copyOfRange(valid, from, valid.length))
                        : ShuffleWire.concat(Arrays.copyOf(valid, from), Arrays.copyOfRange(valid, to, valid.length));
                break;
            default:
                // an oversized head now and then, else a header line of random printable text
                int length = random.nextInt(100) == 0 ? 70_000 : 1 + random.nextInt(200);
                byte[] line = new byte[length];
                for (int k = 0; k < length; k++) {
                    line[k] = (byte) (' ' + random.nextInt(95));
                }
                bytes = ShuffleWire.concat(Arrays.copyOf(valid, head + 2), line, CRLF2);
                break;
        }
        try {
            channel.writeFully(ByteBuffer.wrap(bytes, 0, split));
            if (cutShort) {
                return "closed by the reducer mid-head"; // what counts: no socket left open, asserted after the run
            }
            channel.writeFully(ByteBuffer.wrap(bytes, split, bytes.length - split));
            String status = statusOf(channel);
            if (status.equals("200") && !signed(bytes).equals(signed(valid))) {
                return "200 for a changed request line or UrlHash: "
                        + new String(bytes, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
            }
            return status;
        } catch (IOException e) {
            // a head over Netty's limit: the server answers 400 and closes before all of it is written
            return bytes.length > HttpObjectDecoder.DEFAULT_MAX_HEADER_SIZE ? "closed while sending" : "failed: " + e;
        }
    }

    private static final byte[] CRLF2 = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    /**
     * What a 200 needs as it was signed, read as Netty's decoder reads a head (lines end in LF,
     * the request line's parts are split at white space, header names ignore case, values are
     * trimmed): the method, the URI, and the distinct UrlHash values as stock decodes them
     * (commons-codec's Base64 skips what is not Base64 and stops at the padding, so
     * {@code "rs=.210"} and {@code "rs"} decode as {@code "rs="} does); and the channel binding's nonce and MAC.
     */
    private static String signed(byte[] request) {
        String text = new String(request, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String[] lines = (end < 0 ? text : text.substring(0, end)).split("\r?\n");
        String[] first = lines[0].trim().split("\\s+");
        Set<String> hashes = new TreeSet<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            String name = colon > 0 ? line.substring(0, colon).trim() : "";
            String value = colon > 0 ? line.substring(colon + 1).trim() : "";
            if (name.equalsIgnoreCase(SecureShuffleUtils.HTTP_HEADER_URL_HASH)) {
                hashes.add(Arrays.toString(Base64.decodeBase64(value.getBytes(StandardCharsets.UTF_8))));
            } else if (name.equalsIgnoreCase(ChannelBinding.NONCE_HEADER)
                    || name.equalsIgnoreCase(ChannelBinding.REQUEST_HEADER)) {
                hashes.add(name.toLowerCase(Locale.ROOT) + "=" + value);
            }
        }
        return (first.length >= 2 ? first[0] + " " + first[1] : lines[0]) + " " + hashes;
    }

    /** The status code of the response's first line, or what came instead. */
    private static String statusOf(TipcSocketChannel channel) throws IOException {
        ByteBuffer line = ByteBuffer.allocate(64);
        while (line.hasRemaining()) {
            if (!channel.awaitReadable(30_000)) {
                return "no answer in 30 s";
            }
            if (channel.read(line) < 0) {
                break;
            }
            String text = new String(line.array(), 0, line.position(), StandardCharsets.ISO_8859_1);
            if (text.contains("\r\n")) {
                return text.startsWith("HTTP/1.1 ") ? text.substring(9, 12) : "not a status line: " + text;
            }
        }
        return "closed without an answer";
    }

    /** Polls {@code value} for up to 10 s until it equals {@code expected} (-1: until it stops changing). */
    private static long await(LongCallable value, long expected) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        long last = value.call();
        while (System.nanoTime() < deadline) {
            Thread.sleep(500);
            long now = value.call();
            if (expected >= 0 ? now == expected : now == last) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private static long openSockets() throws IOException {
        return Testbed.openSockets().size();
    }

    /** Threads of the TIPC server's event loops and of stock's Netty server beside it, by the names they are given. */
    private static long serverThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith(TipcShuffleServer.THREAD_NAME) || name.startsWith("ShuffleHandler Netty"))
                .count();
    }

    @FunctionalInterface
    private interface LongCallable {
        long call() throws Exception;
    }

    /** The number the next descriptor would get: the kernel hands out the lowest free one. */
    private static long lowestFreeDescriptor() {
        int fd = LIBC.open("/dev/null", 0);
        LIBC.close(fd);
        return fd;
    }

    private static final int RLIMIT_NOFILE = 7;
    private static final LibC LIBC = Native.load("c", LibC.class);

    private interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        int getrlimit(int resource, RLimit limit) throws LastErrorException;

        int setrlimit(int resource, RLimit limit) throws LastErrorException;
    }

    @Structure.FieldOrder({"cur", "max"})
    public static final class RLimit extends Structure {
        public long cur;
        public long max;
    }

    private static TipcShuffleConnection connection(String uri, CountingReporter reporter) throws IOException {
        TransportRoutes routes = new TransportRoutes(Transport.AUTO, Tipc.availability(), new TransferCounters(reporter));
        TipcShuffleConnection c = ReducerConnections.connection(SERVER_IP, port, uri, outputs.key, routes,
                ReducerConnections.streams(new TransferCounters(reporter), false), new TransferCounters(reporter));
        c.setReadTimeout(20_000);
        return c;
    }

    /** Our fetcher's request for {@code map}'s partition, bound to the server socket of {@code connection}. */
    private static byte[] request(Responses connection, int map) throws IOException {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(map));
        return ShuffleHttp.boundRequest(uri, name().toString(), outputs.key,
                connection.channel.getPeerAddress().toString()).encode();
    }

    private static void assertFrame(ShuffleHttp.Response r, int map) {
        assertEquals(200, r.status(), r.text());
        assertEquals(1, r.frames().size());
        assertFrame(r.frames().get(0), map);
    }

    private static void assertFrame(ShuffleWire.Frame f, int map) {
        assertEquals(ShuffleWire.map(map), f.mapId());
        CRC32C crc = new CRC32C();
        crc.update(f.data());
        assertEquals(outputs.crc(map, 0), crc.getValue(), "map " + map);
    }

    private static TipcSocketChannel connect() throws Exception {
        TipcServiceAddress service = service();
        return Testbed.on("n2", () -> TipcSocketChannel.open(service));
    }

    private static ShuffleServiceName name() throws IOException {
        return ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
    }

    private static TipcServiceAddress service() throws IOException {
        return name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
    }


    /** Responses read one after another off one TIPC connection. */
    private static final class Responses implements AutoCloseable {
        final TipcSocketChannel channel;
        private final ResponseReader reader;

        Responses(TipcSocketChannel channel) {
            this.channel = channel;
            this.reader = new ResponseReader(dst -> {
                if (!channel.awaitReadable(60_000)) {
                    throw new SocketTimeoutException("nothing from the server for 60 s");
                }
                return channel.read(dst);
            });
        }

        ShuffleHttp.Response next() throws IOException {
            return reader.next();
        }

        long drain() throws IOException {
            return reader.drain();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
