package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.TipcAvailability;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static io.hadooptipc.shuffle.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TipcShuffleConnection} on the host: its TIPC streams are AF_UNIX socket pairs
 * answered by canned responses, its HTTP/TCP a loopback server. How each response is
 * classified, what falls back to HTTP/TCP and why, and the counters that say so.
 */
class TipcShuffleConnectionTest {
    private static final String REPLY_HASH = "tipc-and-tcp-agree";
    private static final TipcAvailability TIPC_UP =
            new TipcAvailability(TipcAvailability.Level.CLUSTER, "test", 0, 1);

    private final byte[] body = body();
    private final CountingReporter reporter = new CountingReporter();
    private final TransportRoutes auto = new TransportRoutes(Transport.AUTO, TIPC_UP, new TransferCounters(reporter));
    private final TransportRoutes tipcOnly = new TransportRoutes(Transport.TIPC, TIPC_UP, new TransferCounters(reporter));
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
    }

    @AfterEach
    void stop() throws IOException {
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
        assertEquals("the-url-hash", tipc.requests.get(0).field(SecureShuffleUtils.HTTP_HEADER_URL_HASH));
        assertEquals(3, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(3000 + 70_000 + 10, reporter.get(TipcShuffleCounter.TIPC_BYTES));
        assertNoFallback();
        assertEquals(0, tcp.requests.get());
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
        FutureTask<Void> connect = new FutureTask<>(() -> {
            c.connect();
            return null;
        });
        Thread fetcher = new Thread(connect, "fetcher");
        fetcher.setDaemon(true);
        fetcher.start();
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); tipc.requests.isEmpty(); ) {
            assertTrue(System.nanoTime() - deadline < 0, "the request reaches the server");
            Thread.sleep(10);
        }
        c.disconnect(); // the stock Fetcher's interrupt() during shutDown()
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
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

    private TipcShuffleConnection connection(TransportRoutes routes) {
        TipcShuffleConnection c = new TipcShuffleConnection(url, routes, tipc, new TransferCounters(reporter),
                u -> (HttpURLConnection) u.openConnection());
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, "the-url-hash");
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
            if (counter.name().startsWith("FALLBACK_")) {
                assertEquals(0, reporter.get(counter), counter.name());
            }
        }
    }
}
