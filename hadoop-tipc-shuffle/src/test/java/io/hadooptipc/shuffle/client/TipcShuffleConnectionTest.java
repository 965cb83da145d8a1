package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.FirstFetches;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.tipc.TipcAvailability;
import io.hadooptipc.tipc.TipcSocketAddress;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URL;
import javax.net.ssl.SSLHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.hadooptipc.testbed.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TipcShuffleConnection} on the host: its TIPC streams are AF_UNIX socket pairs
 * answered by canned responses, its HTTP/TCP a loopback server. How each response is
 * classified, what falls back to HTTP/TCP and why, when a stream is kept alive for the
 * host's next fetch, and the counters that say so.
 */
class TipcShuffleConnectionTest {
    private static final String REPLY_HASH = "tipc-and-tcp-agree";
    private static final TipcAvailability TIPC_UP =
            new TipcAvailability(TipcAvailability.Level.CLUSTER, "test", 0, 1);

    private final byte[] body = body();
    private final CountingReporter reporter = new CountingReporter();
    private final TransportRoutes auto = new TransportRoutes(Transport.AUTO, TIPC_UP, new TransferCounters(reporter));
    private final TransportRoutes tipcOnly = new TransportRoutes(Transport.TIPC, TIPC_UP, new TransferCounters(reporter));
    private final StreamTransport viaTipc = (name, host, timeouts) -> this.tipc.open(name, host, timeouts);
    private StreamPool streams = new StreamPool(viaTipc, new TransferCounters(reporter), 1, 60_000);
    private StubHttpServer tcp;
    private SocketPairTransport tipc;
    private URL url;
    private String self;

    private static byte[] body() {
        Random random = new Random(7);
        byte[][] outputs = {new byte[3000], new byte[70_000], new byte[10]};
        for (byte[] o : outputs) {
            random.nextBytes(o);
        }
        try {
            return ShuffleWire.body(0, outputs);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @BeforeEach
    void serveTcp() throws IOException {
        tcpAnswers(REPLY_HASH);
        auto.onLeavingTipc(streams);
    }

    @AfterEach
    void stop() throws IOException {
        streams.close();
        tcp.close();
        if (tipc != null) {
            tipc.close();
        }
    }

    @Test
    void a200OverTipcIsReadWholeAndCountedAsTipc() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertEquals(REPLY_HASH, c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH));
        assertArrayEquals(body, readAll(c));

        assertEquals(self, tipc.requests.get(0).field(TipcShuffleConfig.TARGET_HEADER), "the identity meant");
        assertNull(tipc.requests.get(0).field(SecureShuffleUtils.HTTP_HEADER_URL_HASH),
                "no UrlHash, which the NodeManager's HTTP/TCP port takes, to a socket not yet proven");
        assertEquals(ShuffleHeader.DEFAULT_HTTP_HEADER_NAME, tipc.requests.get(0).field(ShuffleHeader.HTTP_HEADER_NAME),
                "the stock fetcher's other fields");
        assertTrue(ChannelBinding.requestVerifies(SocketPairTransport.JOB_TOKEN, url.getFile(),
                tipc.requests.get(0).field(ChannelBinding.NONCE_HEADER), ChannelStream.SERVER,
                tipc.requests.get(0).field(ChannelBinding.REQUEST_HEADER)), "bound to the socket the stream reached");
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(3000 + 70_000 + 10, reporter.get(TipcShuffleCounter.TIPC_BYTES));
        assertNoFallback();
        assertEquals(0, tcp.requests.get());
    }

    /**
     * The stock fetcher reads each ShuffleHeader a byte at a time and then the map output: small map outputs
     * must still cost no more than one read of the stream each, all of them from the stream's buffer.
     */
    @Test
    void smallMapOutputsReadTheWayTheStockFetcherReadsThemTakeAtMostOneStreamReadEach() throws Exception {
        int maps = 32;
        byte[][] outputs = new byte[maps][3_900];
        Random random = new Random(11);
        for (byte[] o : outputs) {
            random.nextBytes(o);
        }
        byte[] small = ShuffleWire.body(0, outputs);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                CannedResponse.of(200, self, Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, REPLY_HASH), small)));
        AtomicInteger reads = new AtomicInteger();
        streams.close();
        streams = new StreamPool((name, host, timeouts) -> new CountedReads(tipc.open(name, host, timeouts), reads),
                new TransferCounters(reporter), 1, 60_000);
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        int headReads = reads.get();
        try (DataInputStream in = new DataInputStream(c.getInputStream())) {
            for (int m = 0; m < maps; m++) {
                new ShuffleHeader().readFields(in);
                byte[] data = new byte[outputs[m].length];
                in.readFully(data);
                assertArrayEquals(outputs[m], data, "map " + m);
            }
        }
        assertEquals(maps, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        System.out.printf("%d map outputs of 3,900 bytes: %d reads of the stream for the head, %d for the body%n",
                maps, headReads, reads.get() - headReads);
        assertTrue(reads.get() - headReads <= maps, (reads.get() - headReads) + " reads of the stream for " + maps
                + " map outputs of 3,900 bytes");
    }

    /** A stream that counts its reads. */
    private static final class CountedReads implements ShuffleStream {
        private final ShuffleStream stream;
        private final AtomicInteger reads;

        private CountedReads(ShuffleStream stream, AtomicInteger reads) {
            this.stream = stream;
            this.reads = reads;
        }

        @Override
        public String server() {
            return stream.server();
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            reads.incrementAndGet();
            return stream.read(dst);
        }

        @Override
        public void writeFully(ByteBuffer src) throws IOException {
            stream.writeFully(src);
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }

        public ShuffleStream stream() {
            return stream;
        }

        public AtomicInteger reads() {
            return reads;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof CountedReads)) {
                return false;
            }
            CountedReads that = (CountedReads) o;
            return Objects.equals(stream, that.stream) && Objects.equals(reads, that.reads);
        }

        @Override
        public int hashCode() {
            return Objects.hash(stream, reads);
        }

        @Override
        public String toString() {
            return "CountedReads[stream=" + stream + ", reads=" + reads + "]";
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 500})
    void anErrorStatusIsTheFetchersWhetherTheServerNamesItselfOrNot(int status) throws Exception {
        for (boolean named : new boolean[] {true, false}) {
            tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                    CannedResponse.of(status, named ? self : null, Map.of(), "refused".getBytes())));
            TipcShuffleConnection c = connection(auto);
            assertEquals(status, c.getResponseCode(), "named: " + named);
            assertThrows(IOException.class, c::getInputStream, "as HttpURLConnection does for an error status");
            tipc.close();
        }
        assertNoFallback();
        assertEquals(0, tcp.requests.get(), "an error over TIPC is not retried over HTTP/TCP");
    }

    @Test
    void a429WithoutTheServerNameKeepsItsRetryAfterForTheFetcher() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                CannedResponse.of(429, null, Map.of("Retry-After", "2500"), new byte[0])));
        TipcShuffleConnection c = connection(auto);
        assertEquals(429, c.getResponseCode());
        assertEquals(2500, c.getHeaderFieldLong("Retry-After", -1));
        assertNoFallback();
        assertEquals(0, tcp.requests.get());
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 421})
    void aResponseFromAnotherServerMovesTheHostToTcp(int status) throws Exception {
        String other = status == 421 ? self : "10.0.0.99:" + tcp.port();
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                CannedResponse.of(status, other, Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, "another"),
                        new byte[0])));
        for (int fetch = 1; fetch <= 2; fetch++) {
            TipcShuffleConnection c = connection(auto);
            assertEquals(200, c.getResponseCode());
            assertEquals(REPLY_HASH, c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), "TCP's answer");
            assertArrayEquals(body, readAll(c));
            assertEquals(fetch, reporter.get(TipcShuffleCounter.FALLBACK_MISDIRECTED));
        }
        assertEquals(1, tipc.opened.size(), "the host's later fetches go straight to HTTP/TCP");
        assertEquals(6, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
    }

    /**
     * A process that holds the host's TIPC name without the job token (or relays to the server from a socket of
     * its own): its answer is not read, and the fetch goes over HTTP/TCP.
     */
    @ParameterizedTest
    @ValueSource(strings = {"no", "another socket's", "an earlier request's"})
    void aReplyWithoutTheJobTokensBindingToThisSocketIsNotReadAndTheFetchGoesOverTcp(String binding) throws Exception {
        byte[] impostors = "not the map output".getBytes(StandardCharsets.US_ASCII);
        tipc = SocketPairTransport.answering((request, socket) -> {
            String nonce = request.field(ChannelBinding.NONCE_HEADER);
            Map<String, String> fields = new HashMap<>(Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, REPLY_HASH));
            switch (binding) {
                case "another socket's":
                    fields.put(ChannelBinding.REPLY_HEADER,
                        ChannelBinding.reply(SocketPairTransport.JOB_TOKEN, nonce, "tipc:<1001003:17>"));
                    break;
                case "an earlier request's":
                    fields.put(ChannelBinding.REPLY_HEADER,
                        ChannelBinding.reply(SocketPairTransport.JOB_TOKEN, ChannelBinding.nonce(), ChannelStream.SERVER));
                    break;
                default:
                    break;
            }
            SocketPairTransport.writeUnbound(socket, CannedResponse.of(200, self, fields, impostors));
        });
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertArrayEquals(body, readAll(c));
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED));
        assertEquals(0, reporter.get(TipcShuffleCounter.TIPC_BYTES));
        assertEquals(3, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertEquals(1, tcp.requests.get());
    }

    /**
     * The name leads to a process without the job token, and the topology service lists it and the
     * NodeManager among the name's publications: the fetch tries each directly and is served over TIPC by the
     * one that proves the token, counted as a skip, not a fallback.
     */
    @Test
    void aServerWithoutTheTokenIsSkippedForAnotherPublicationThatProvesIt() throws Exception {
        SocketPairTransport.Peer impostor = (request, socket) -> SocketPairTransport.writeUnbound(socket,
                CannedResponse.of(200, self, Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, REPLY_HASH),
                        "not the map output".getBytes(StandardCharsets.US_ASCII)));
        tipc = SocketPairTransport.answering(impostor)
                .publishedBy(TipcSocketAddress.of(17, 0x1001003), impostor)
                .publishedBy(TipcSocketAddress.of(9, 0x1001001), SocketPairTransport.replying(ok(self)));
        streams.close();
        streams = new StreamPool(tipc, new TransferCounters(reporter), 1, 60_000);
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertArrayEquals(body, readAll(c));
        assertEquals(0, reporter.get(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED));
        assertEquals(1, reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED));
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(0, tcp.requests.get());
        assertEquals(3, tipc.opened.size(), "by name, then each publication in turn");
    }

    /**
     * Whatever the socket the name leads to answers short of the proof, any process that bound the name could
     * answer it: a 421, a 200 naming another server, a close before a byte, a head cut short, bytes that are no
     * head, a failed TLS handshake. Each is walked past to the publication that proves the job token.
     */
    @ParameterizedTest
    @ValueSource(strings = {"421", "another server", "close", "head cut short", "garbage", "TLS failure"})
    void everyAnswerShortOfTheProofIsWalkedPastToThePublicationThatProvesIt(String answer) throws Exception {
        byte[] impostors = "not the map output".getBytes(StandardCharsets.US_ASCII);
        SocketPairTransport.Peer impostor = (request, socket) -> {
            switch (answer) {
                case "421":
                    SocketPairTransport.writeUnbound(socket, CannedResponse.of(421, self, Map.of(), new byte[0]));
                    break;
                case "another server":
                    SocketPairTransport.writeUnbound(socket, CannedResponse.of(200, "10.0.0.99:" + tcp.port(),
                            Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, REPLY_HASH), impostors));
                    break;
                case "head cut short":
                    SocketPairTransport.writeUnbound(socket, Arrays.copyOf(ok(self), 40));
                    break;
                case "garbage":
                    SocketPairTransport.writeUnbound(socket,
                            "\0\0SSH-2.0-not-http\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    break;
                default: // close: no byte
                    break;
            }
        };
        tipc = SocketPairTransport.answering(impostor)
                .publishedBy(TipcSocketAddress.of(17, 0x1001003), impostor)
                .publishedBy(TipcSocketAddress.of(9, 0x1001001), SocketPairTransport.replying(ok(self)));
        streams.close();
        streams = new StreamPool(answer.equals("TLS failure") ? handshakeFailsByName(tipc) : tipc,
                new TransferCounters(reporter), 1, 60_000);
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertArrayEquals(body, readAll(c));
        assertNoFallback();
        assertEquals(1, reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED));
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(0, tcp.requests.get());
    }

    /** {@code tipc}, but a TLS handshake with whoever the name leads to fails, as with a process without the key. */
    private static StreamTransport handshakeFailsByName(SocketPairTransport tipc) {
        return new StreamTransport() {
            @Override
            public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
                tipc.opened.add(name);
                throw new SSLHandshakeException("TLS over TIPC: no certificate the job trusts");
            }

            @Override
            public List<TipcSocketAddress> publications(ShuffleServiceName name) {
                return tipc.publications(name);
            }

            @Override
            public ShuffleStream open(ShuffleServiceName name, TipcSocketAddress publication, String host,
                                      Timeouts timeouts) throws IOException {
                return tipc.open(name, publication, host, timeouts);
            }
        };
    }

    /**
     * A server that sends its head a byte at a time, each well within the read timeout, holds a fetch no longer
     * than its socket's proof timeout; the fetch goes on to the publication that proves the token.
     */
    @Test
    void aServerThatDripsItsHeadIsCutAtItsSocketsProofTimeout() throws Exception {
        auto.proofBounds(500, 30_000, 30_000);
        SocketPairTransport.Peer drip = dripping(50);
        tipc = SocketPairTransport.answering(drip)
                .publishedBy(TipcSocketAddress.of(17, 0x1001003), drip)
                .publishedBy(TipcSocketAddress.of(9, 0x1001001), SocketPairTransport.replying(ok(self)));
        streams.close();
        streams = new StreamPool(tipc, new TransferCounters(reporter), 1, 60_000);
        TipcShuffleConnection c = connection(auto);
        long start = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertArrayEquals(body, readAll(c)));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took >= 1000 && took < 10_000, "two dripping sockets, 500 ms each: " + took + " ms");
        assertNoFallback();
        assertEquals(1, reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED));
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
    }

    /**
     * Where every socket at the name drips, the attempt's proof timeout ends the walk and the fetch goes over
     * HTTP/TCP; the host stays there for the hold, then goes back to TIPC by itself, where the NodeManager now
     * answers first.
     */
    @Test
    void whenNoSocketProvesTheTokenInTimeTheFetchGoesOverTcpAndTheHostComesBackToTipcAfterTheHold() throws Exception {
        auto.follow(new WatchedNames()); // names followed, none published again: only the hold brings it back
        auto.proofBounds(300, 800, 1500);
        SocketPairTransport.Peer drip = dripping(50);
        tipc = SocketPairTransport.answering(drip);
        for (int p = 1; p <= 5; p++) {
            tipc.publishedBy(TipcSocketAddress.of(p, 0x1001003), drip);
        }
        streams.close();
        streams = new StreamPool(tipc, new TransferCounters(reporter), 1, 60_000);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertArrayEquals(body, readAll(connection(auto))));
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_PROOF_TIMEOUT));
        assertTrue(tipc.opened.size() <= 4, "800 ms is by name and two publications' worth, not six: "
                + tipc.opened.size() + " tried");
        assertEquals(3, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        int tried = tipc.opened.size();
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(tried, tipc.opened.size(), "held on HTTP/TCP");
        tipc.close();

        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        streams.close();
        streams = new StreamPool(tipc, new TransferCounters(reporter), 1, 60_000);
        Thread.sleep(1500);
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, tipc.opened.size(), "back on TIPC after the hold");
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_BACK_AFTER_HOLD));
        assertEquals(0, reporter.get(TipcShuffleCounter.ROUTES_BACK_TO_TIPC), "no publication brought it back");
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
    }

    /** A peer that sends a response head a byte every {@code millis}, never ending it, until the fetcher closes. */
    private static SocketPairTransport.Peer dripping(long millis) {
        return (request, socket) -> {
            byte[] start = "HTTP/1.1 200 OK\r\nX-Drip: ".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; ; i++) {
                SocketPairTransport.writeUnbound(socket, new byte[] {i < start.length ? start[i] : (byte) 'a'});
                Thread.sleep(millis);
            }
        };
    }

    @Test
    void aResponseHeadCutShortFallsBackBeforeTheResponse() throws Exception {
        byte[] whole = ok(self);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(Arrays.copyOf(whole, 40)));
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertArrayEquals(body, readAll(c));
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_CONNECT_FAILED));
        assertEquals(3, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertEquals(1, tcp.requests.get());
    }

    @Test
    void anUnpublishedNameAndARefusedConnectionFallBackEachWithItsReason() throws Exception {
        tipc = SocketPairTransport.refusing(new ServiceNotPublishedException(name(), null));
        assertEquals(200, connection(auto).getResponseCode());
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_NOT_PUBLISHED));
        tipc.close();

        tcp.close();
        tcpAnswers(REPLY_HASH); // another port: a host TIPC has not failed for yet
        tipc = SocketPairTransport.refusing(new ConnectException("refused"));
        assertEquals(200, connection(auto).getResponseCode());
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_CONNECT_FAILED));
    }

    @Test
    void aWithdrawnNameSendsTheHostToTcpWithoutAConnectAttempt() throws Exception {
        WatchedNames watched = new WatchedNames();
        auto.follow(watched);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(List.of(name()), watched.names, "the host's name is followed from its first fetch");

        auto.withdrawn(name());
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertArrayEquals(body, readAll(c));
        assertEquals(1, tipc.opened.size(), "no TIPC connect to a withdrawn name");
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_WITHDRAWN));
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
        assertEquals(3, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
    }

    @Test
    void inTipcModeAWithdrawnNameSendsNoFetchOverTcpTheFetchTriesTipcAndFails() throws Exception {
        WatchedNames watched = new WatchedNames();
        tipcOnly.follow(watched);
        tipcOnly.onLeavingTipc(streams);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        assertArrayEquals(body, readAll(connection(tipcOnly)));

        tipcOnly.withdrawn(name()); // the NodeManager stopped, or every link to its node went down
        tipc.close();
        tipc = SocketPairTransport.refusing(new ServiceNotPublishedException(name(), null));
        TipcShuffleConnection c = connection(tipcOnly);
        assertThrows(ServiceNotPublishedException.class, c::connect, "a TIPC failure, the fetcher's");
        assertEquals(1, tipc.opened.size(), "the fetch tried TIPC");
        assertEquals(0, tcp.requests.get(), "nothing over HTTP/TCP");
        assertEquals(0, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
        assertNoFallback();

        tipc.close();
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        tipcOnly.published(name()); // the NodeManager is back
        assertArrayEquals(body, readAll(connection(tipcOnly)));
        assertEquals(0, tcp.requests.get());
    }

    @Test
    void aFetchFromAHostWhoseNodeWasLostFailsAtOnceOverNeitherTransportItsStreamClosedAndSoDoesTheNext()
            throws Exception {
        TrackedStreams tracked = new TrackedStreams(viaTipc);
        streams.close();
        streams = new StreamPool(tracked, new TransferCounters(reporter), 1, 60_000);
        auto.onLeavingTipc(streams);
        List<String> held = new CopyOnWriteArrayList<>();
        NodeLoss loss = new NodeLoss(new NodeLoss.Hosts() {
            @Override
            public void held(String host) {
                held.add(host);
            }

            @Override
            public void lost(String host, int node, long sinceMillis) {
            }

            @Override
            public void stillLost(String host) {
            }

            @Override
            public void released(String host) {
            }
        }, (host, port, timeout) -> false, (millis, task) -> { }, () -> 0L, new TransferCounters(reporter),
                3_000, 2_000, 6_000, 0x1001001);
        loss.closeStreamsWith(tracked);
        loss.nodeUp(0x1001002);
        loss.nodeUp(0x1001003);
        auto.actOnNodeLoss(loss);
        auto.proved(url, name(), "tipc:<1001002:77>"); // as a reply that proved the job token ties it
        tipc = SocketPairTransport.answering(SocketPairTransport.silent());
        TipcShuffleConnection c = connection(auto);
        c.setReadTimeout(0); // only the node's loss can end the wait
        FutureTask<Void> connect = connecting(c);
        Await.until("the request reaches the server", () -> !tipc.requests.isEmpty());

        auto.nodeLost(0x1001002);
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
        assertEquals(List.of("127.0.0.1:" + url.getPort()), held);
        assertEquals(0, tracked.openTo(name()), "its TIPC stream closed");
        assertEquals(0, tcp.requests.get(), "not over HTTP/TCP, where a dead host costs the stock timeouts");
        assertNoFallback();

        int opened = tipc.opened.size();
        TipcShuffleConnection next = connection(auto);
        assertThrows(IOException.class, next::connect, "the next fetch fails at once");
        assertEquals(opened, tipc.opened.size(), "without a TIPC connect");
        assertEquals(0, tcp.requests.get());
    }

    @Test
    void aLargeMapOutputComesOverTcpFromItsHeaderOnAndTheTaskFetchesOverTcpAfterIt() throws Exception {
        auto.tcpAbove(65_536); // the body holds map outputs of 3,000, 70,000 and 10 bytes
        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(keptAlive(5)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "the output before the large one");
        assertEquals(2, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS), "the large one from its header on, and the rest");
        assertEquals(1, tcp.requests.get(), "the response under way goes on over HTTP/TCP");
        assertEquals("65536", tipc.requests.get(0).field(TipcShuffleConfig.TCP_ABOVE_HEADER),
                "the server may end its response at the large one's header");

        for (int fetch = 1; fetch <= 2; fetch++) {
            assertArrayEquals(body, readAll(connection(auto)));
        }
        assertEquals(1, tipc.opened.size(), "no TIPC stream after the large map output");
        assertEquals(3, reporter.get(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS));
        assertEquals(8, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertEquals(3, tcp.requests.get());
        assertNoFallback();

        TransportRoutes allOnTipc = new TransportRoutes(Transport.AUTO, TIPC_UP, new TransferCounters(reporter));
        assertArrayEquals(body, readAll(connection(allOnTipc)));
        assertEquals(2, tipc.opened.size(), "the stream left mid-response was not kept for the host's next fetch");
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertNull(tipc.requests.get(1).field(TipcShuffleConfig.TCP_ABOVE_HEADER), "every size stays on TIPC");
    }

    @Test
    void aResponseTheServerEndsAtALargeMapOutputsHeaderGoesOnOverTcpWithoutAFallback() throws Exception {
        auto.tcpAbove(65_536);
        byte[] whole = ok(self);
        int afterLargeHeader = 70_000 + ShuffleWire.body(0, Map.of(map(2), new byte[10])).length;
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                Arrays.copyOf(whole, whole.length - afterLargeHeader))); // then closes, as our server does
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "the output before the large one");
        assertEquals(2, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertEquals(1, reporter.get(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS));
        assertNoFallback();
    }

    @Test
    void aLargeMapOutputThatHttpTcpCannotTakeOnFailsTheReadForTheFetcherWithTheOffsetNamed() throws Exception {
        auto.tcpAbove(65_536);
        tcp.close();
        tcpAnswers("another reply hash");
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        IOException e = assertThrows(IOException.class, () -> readAll(connection(auto)));
        assertTrue(e.getMessage().contains("left TIPC for HTTP/TCP at byte"), e::toString);
        assertTrue(e.getCause().getMessage().contains("another ReplyHash"), e::toString);
        assertEquals(1, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "the output before the large one");
        assertEquals(0, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertNoFallback();
    }

    @Test
    void withTheFirstFetchesOverTcpASmallFirstMapOutputSendsTheTaskToTipc() throws Exception {
        auto.tcpAbove(100_000); // the body holds map outputs of 3,000, 70,000 and 10 bytes
        auto.firstFetches(FirstFetches.TCP);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(0, tipc.opened.size(), "the first fetch does not touch TIPC");
        assertEquals(1, tcp.requests.get());
        assertEquals(1, reporter.get(TipcShuffleCounter.TCP_FIRST_FETCHES));
        assertEquals(3, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));

        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, tipc.opened.size(), "a 3,000-byte output chose TIPC for the task");
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(1, tcp.requests.get());
        assertNoFallback();
    }

    @Test
    void withTheFirstFetchesOverTcpALargeFirstMapOutputKeepsTheTaskOffTipc() throws Exception {
        auto.tcpAbove(1000);
        auto.firstFetches(FirstFetches.TCP);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        for (int fetch = 1; fetch <= 2; fetch++) {
            assertArrayEquals(body, readAll(connection(auto)));
        }
        assertEquals(0, tipc.opened.size(), "a bulk task pays nothing for TIPC");
        assertEquals(1, reporter.get(TipcShuffleCounter.TCP_FIRST_FETCHES));
        assertEquals(1, reporter.get(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS), "the fetch after the 3,000-byte output");
        assertEquals(6, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertNoFallback();
    }

    @Test
    void aProbeWithASmallFirstMapOutputKeepsTheTaskOnTipc() throws Exception {
        auto.tcpAbove(100_000);
        auto.firstFetches(FirstFetches.PROBE);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, tipc.opened.size(), "the probe went over TIPC");
        assertFalse(auto.sizeUnknown(), "its 3,000-byte output chose TIPC for the task");
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(6, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(0, tcp.requests.get());
        assertNoFallback();
    }

    @Test
    void aProbeWithALargeMapOutputSendsTheTaskToTcp() throws Exception {
        auto.tcpAbove(1000);
        auto.firstFetches(FirstFetches.PROBE);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertFalse(auto.sizeUnknown());
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, tipc.opened.size(), "only the probe touched TIPC");
        assertEquals(1, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "the probe's 3,000-byte output");
        assertEquals(5, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertEquals(2, tcp.requests.get(), "the probe's rest and the next fetch");
        assertNoFallback();
    }

    @Test
    void aHostThatFellBackReturnsToTipcWhenItsNameIsPublishedAgain() throws Exception {
        auto.follow(new WatchedNames());
        tipc = SocketPairTransport.refusing(new ConnectException("refused"));
        for (int fetch = 1; fetch <= 3; fetch++) {
            assertArrayEquals(body, readAll(connection(auto)));
        }
        assertEquals(1, tipc.opened.size(), "after the failure the host stays on HTTP/TCP");
        assertEquals(3, reporter.get(TipcShuffleCounter.FALLBACK_CONNECT_FAILED), "requests sent over HTTP/TCP for it");
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
        tipc.close();

        auto.published(name()); // its NodeManager is back
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(ok(self)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, tipc.opened.size());
        assertEquals(1, reporter.get(TipcShuffleCounter.ROUTES_BACK_TO_TIPC));
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(9, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
    }

    @Test
    void aBodyCutShortResumesOverTcpFromTheByteReached() throws Exception {
        byte[] whole = ok(self);
        int cut = whole.length - body.length / 2; // inside the second map output
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(Arrays.copyOf(whole, cut)));
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        assertArrayEquals(body, readAll(c));

        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_MID_TRANSFER));
        assertEquals(1, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "the first map output came whole over TIPC");
        assertEquals(2, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
        assertEquals(1, tcp.requests.get());
    }

    @Test
    void aResumeThatWouldSpliceInAnotherResponseFailsTheRead() throws Exception {
        tcp.close();
        tcpAnswers("another reply hash");
        byte[] whole = ok(self);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(Arrays.copyOf(whole, whole.length - 100)));
        TipcShuffleConnection c = connection(auto);
        assertEquals(200, c.getResponseCode());
        IOException e = assertThrows(IOException.class, () -> readAll(c));
        assertTrue(e.getSuppressed()[0].getMessage().contains("another ReplyHash"), e::toString);
    }

    @Test
    void aSilentServerTimesOutWithinTheReadTimeoutThenFallsBack() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.silent());
        TipcShuffleConnection c = connection(auto);
        c.setReadTimeout(300);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertEquals(200, c.getResponseCode()));
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_CONNECT_FAILED));
    }

    @Test
    void inTipcModeAFailureIsTheFetchersAndNothingGoesOverTcp() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.silent());
        TipcShuffleConnection silent = connection(tipcOnly);
        silent.setReadTimeout(300);
        assertThrows(SocketTimeoutException.class, silent::connect);
        tipc.close();

        byte[] whole = ok(self);
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(Arrays.copyOf(whole, whole.length - 100)));
        TipcShuffleConnection cut = connection(tipcOnly);
        assertEquals(200, cut.getResponseCode());
        assertThrows(IOException.class, () -> readAll(cut));
        assertNoFallback();
        assertEquals(0, tcp.requests.get());
    }

    @Test
    void aDisconnectEndsAWaitingConnectWithoutFallingBack() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.silent());
        TipcShuffleConnection c = connection(auto);
        c.setReadTimeout(0); // only the disconnect can end the wait
        FutureTask<Void> connect = connecting(c);
        Await.until("the request reaches the server", () -> !tipc.requests.isEmpty());
        c.disconnect(); // the stock Fetcher's interrupt() during shutDown()
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
        assertNoFallback();
        assertEquals(0, tcp.requests.get());
    }

    @Test
    void aKeptAliveStreamCarriesTheHostsNextFetchesWithTheSignedUrlUnchanged() throws Exception {
        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(keptAlive(5)));
        for (int fetch = 1; fetch <= 3; fetch++) {
            assertArrayEquals(body, readAll(connection(auto)), "fetch " + fetch);
        }
        assertEquals(1, tipc.opened.size(), "one stream for the three fetches");
        assertEquals(3, tipc.requests.size());
        for (var request : tipc.requests) {
            assertEquals("GET " + url.getFile() + " HTTP/1.1", request.startLine(), "the URL the fetcher signed");
            assertEquals("keep-alive", request.field("Connection"));
        }
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_OPENED));
        assertEquals(2, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertEquals(9, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertNoFallback();

        streams.close(); // the reduce task's shuffle is over
        Await.until("closing the pool closes its idle stream", () -> tipc.closedByFetcher.get() == 1);
    }

    @Test
    void aStreamIsReusedOnlyAfterABodyReadToItsEndThatTheServerKeepsAlive() throws Exception {
        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(keptAlive(5)));
        try (InputStream in = connection(auto).getInputStream()) {
            assertEquals(100, in.readNBytes(100).length); // the fetcher stops early, e.g. its merger said WAIT
        }
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(2, tipc.opened.size(), "a stream with unread response bytes on it is closed");
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        tipc.close();
        streams.close(); // and with it the second stream, which was read to its end
        streams = new StreamPool(viaTipc, new TransferCounters(reporter), 1, 60_000);

        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(ok(self))); // no keep-alive
        assertArrayEquals(body, readAll(connection(auto)));
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(2, tipc.opened.size(), "a stream the server did not keep alive is closed");
        assertEquals(4, reporter.get(TipcShuffleCounter.STREAMS_OPENED));
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertNoFallback();
    }

    @Test
    void aKeptAliveStreamTheServerClosedMeanwhileIsRetriedOnceOnANewStream() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(keptAlive(5))); // then closes
        assertArrayEquals(body, readAll(connection(auto)));
        assertArrayEquals(body, readAll(connection(auto)));

        assertEquals(2, tipc.opened.size());
        assertEquals(2, tipc.requests.size(), "the second request reached the server on the new stream");
        assertEquals(2, reporter.get(TipcShuffleCounter.STREAMS_OPENED));
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertEquals(6, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertNoFallback();
        assertEquals(0, reporter.get(TipcShuffleCounter.ROUTES_TO_TCP));
        assertEquals(0, tcp.requests.get());
    }

    @Test
    void anIdleStreamIsClosedAfterOurIdleTimeoutOrTheServersShorterOne() throws Exception {
        streams.close();
        streams = new StreamPool(viaTipc, new TransferCounters(reporter), 1, 200);
        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(keptAlive(5)));
        assertArrayEquals(body, readAll(connection(auto)));
        Await.until("closed after 200 ms idle", () -> tipc.closedByFetcher.get() == 1);
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(2, tipc.opened.size());
        tipc.close();

        streams.close();
        streams = new StreamPool(viaTipc, new TransferCounters(reporter), 1, 60_000);
        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(keptAlive(1)));
        long start = System.nanoTime(); // before the release: a busy machine may stall this thread after it
        assertArrayEquals(body, readAll(connection(auto)));
        Await.until("closed after the server's 1 s", () -> tipc.closedByFetcher.get() == 1);
        long idle = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(idle >= 1000, "closed " + idle + " ms after the fetch began");
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
    }

    @Test
    void aWithdrawnNameClosesTheHostsKeptAliveStreams() throws Exception {
        auto.follow(new WatchedNames());
        tipc = SocketPairTransport.keepingAlive(SocketPairTransport.replying(keptAlive(60))); // no expiry in the test
        assertArrayEquals(body, readAll(connection(auto)));

        auto.withdrawn(name());
        Await.until("the kept-alive stream is closed", () -> tipc.closedByFetcher.get() == 1);
        assertArrayEquals(body, readAll(connection(auto)));
        assertEquals(1, tipc.opened.size());
        assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_WITHDRAWN));
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
    }

    @Test
    void aDisconnectFromAnotherThreadEndsAFetchOnAKeptAliveStreamWithoutARetry() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        tipc = SocketPairTransport.keepingAlive((request, socket) -> {
            if (requests.incrementAndGet() == 1) {
                SocketPairTransport.write(socket, keptAlive(5));
            } else {
                SocketPairTransport.silent().answer(request, socket);
            }
        });
        TipcShuffleConnection first = connection(auto);
        first.setReadTimeout(0); // only the disconnect can end the wait; a stream is reused with its timeouts
        assertArrayEquals(body, readAll(first));
        TipcShuffleConnection c = connection(auto);
        c.setReadTimeout(0);
        FutureTask<Void> connect = connecting(c);
        Await.until("the request reaches the server", () -> tipc.requests.size() == 2);
        c.disconnect();
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
        assertEquals(1, tipc.opened.size(), "no new stream after the disconnect");
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertNoFallback();
        assertEquals(0, tcp.requests.get());
    }

    private void tcpAnswers(String replyHash) throws IOException {
        tcp = new StubHttpServer(200, Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, replyHash), body);
        url = new URL("http", "127.0.0.1", tcp.port(), ShuffleWire.uri(ShuffleWire.JOB, 0, map(0), map(1), map(2)));
        self = name().toString();
    }

    private ShuffleServiceName name() throws IOException {
        return ShuffleServiceName.of(InetAddress.getByName(url.getHost()), url.getPort());
    }

    private byte[] ok(String server) {
        return CannedResponse.of(200, server, Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, REPLY_HASH), body);
    }

    /** A 200 that keeps the stream open for {@code seconds} more, as our server does when asked. */
    private byte[] keptAlive(int seconds) {
        return CannedResponse.of(200, self, Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, REPLY_HASH,
                "Connection", "keep-alive", "Keep-Alive", "timeout=" + seconds), body);
    }

    /** Connects {@code c} in a thread of its own, the fetcher's, which the test then disconnects from its own. */
    private static FutureTask<Void> connecting(TipcShuffleConnection c) {
        FutureTask<Void> connect = new FutureTask<>(() -> {
            c.connect();
            return null;
        });
        Thread fetcher = new Thread(connect, "fetcher");
        fetcher.setDaemon(true);
        fetcher.start();
        return connect;
    }

    private TipcShuffleConnection connection(TransportRoutes routes) {
        TipcShuffleConnection c = new TipcShuffleConnection(url, routes, streams, new TransferCounters(reporter),
                u -> (HttpURLConnection) u.openConnection(), SocketPairTransport.JOB_TOKEN);
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, "the-url-hash");
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.setReadTimeout(10_000);
        return c;
    }

    private static byte[] readAll(TipcShuffleConnection c) throws IOException {
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }

    /** A topology source driven by the test: it only records which names the routes follow. */
    static final class WatchedNames implements NameWatch {
        final List<ShuffleServiceName> names = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        @Override
        public void watch(ShuffleServiceName name) {
            names.add(name);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private void assertNoFallback() {
        for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
            if (counter.isFallback()) {
                assertEquals(0, reporter.get(counter), counter.name());
            }
        }
    }
}
