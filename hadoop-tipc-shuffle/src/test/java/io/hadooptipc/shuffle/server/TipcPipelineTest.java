package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ResponseReader;
import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TlsMaterial;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapred.ShuffleChannelInitializer;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What TIPC adds around stock's shuffle pipeline ({@link TipcShuffleChannelInitializer}), on the host:
 * the same pipeline as over TIPC, served by Netty's epoll transport on a loopback TCP socket; with
 * encrypted shuffle required, with stock's SslHandler from stock's own SSL factory.
 */
class TipcPipelineTest {
    static final int MAPS = 3;
    static final int PARTITION = 1 << 20;
    static final String ME = "10.0.0.1:13562";
    static final String ALSO_ME = "10.0.0.2:13562";
    /** Peer nodes, as {@link #CLIENT_ADDRESS} tells them apart: every 127.0.0.0/8 address is loopback. */
    static final InetAddress NODE_A = loopback(2);
    static final InetAddress NODE_B = loopback(3);
    static final InetAddress NODE_C = loopback(4);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static PipelineSource handler;
    /** The same with encrypted shuffle required: stock's HTTPS, and TLS over TIPC. */
    static PipelineSource tlsHandler;
    static int httpPort;

    /** What a loopback TCP connection's server end is named in channel bindings here: a TIPC socket's identity over TIPC. */
    static final ChannelBindingCheck.ServerSocket LOOPBACK_PORT =
            ch -> "tcp:" + ((InetSocketAddress) ch.localAddress()).getPort();
    /** A loopback connection's peer node here: its client's address, 127.0.0.x, a TIPC node over TIPC. */
    static final OpenConnectionCap.PeerNode CLIENT_ADDRESS =
            ch -> ((InetSocketAddress) ch.remoteAddress()).getAddress().hashCode();

    EventLoopGroup loops;
    TipcShuffleMetrics metrics;
    int port;

    /** Our handler (serving HTTP/TCP only on this host) that lends the stock pipeline it makes for TIPC connections. */
    static final class PipelineSource extends TipcShuffleHandler {
        ShuffleChannelInitializer pipeline() {
            return stockPipeline(tipcContext(httpPort), Encryption.of(getConfig()));
        }

        JobTokenSecretManager tokens() {
            return tipcContext(httpPort).secretManager;
        }
    }

    private static InetAddress loopback(int host) {
        try {
            return InetAddress.getByAddress(new byte[]{127, 0, 0, (byte) host});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeAll
    static void mapOutputs() throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true);
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        handler = outputs.serve(new PipelineSource(), new YarnConfiguration(), 0);
        httpPort = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        YarnConfiguration tls = new YarnConfiguration();
        TlsMaterial.loopback().serverConf(tls, TlsMaterial.loopback().server);
        tlsHandler = outputs.serve(new PipelineSource(), tls, 0);
    }

    @AfterAll
    static void stopHandlers() {
        handler.stop();
        tlsHandler.stop();
    }

    @AfterEach
    void stopServer() throws Exception {
        if (loops != null) {
            loops.shutdownGracefully(0, 5, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private void serve(int maxConnections, long writeTimeoutMillis) throws Exception {
        serve(handler, maxConnections, writeTimeoutMillis, 60_000);
    }

    private void serve(PipelineSource source, int maxConnections, long writeTimeoutMillis) throws Exception {
        serve(source, maxConnections, writeTimeoutMillis, 60_000);
    }

    private void serve(PipelineSource source, int maxConnections, long writeTimeoutMillis, long requestTimeoutMillis)
            throws Exception {
        serve(source, maxConnections, writeTimeoutMillis, requestTimeoutMillis,
                TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS,
                TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS_PER_NODE);
    }

    private void serve(PipelineSource source, int maxConnections, long writeTimeoutMillis, long requestTimeoutMillis,
                       int maxOpenConnections, int maxOpenPerNode) throws Exception {
        metrics = new TipcShuffleMetrics();
        loops = new EpollEventLoopGroup(2);
        Channel listener = new ServerBootstrap().group(loops).channel(EpollServerSocketChannel.class)
                .handler(new OpenConnectionCap(maxOpenConnections, maxOpenPerNode, CLIENT_ADDRESS, metrics))
                .childHandler(new TipcShuffleChannelInitializer(source.pipeline(), Set.of(ME, ALSO_ME), metrics,
                        writeTimeoutMillis, requestTimeoutMillis, maxConnections,
                        TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, source.tokens(), LOOPBACK_PORT, httpPort))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        port = ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Test
    void answersPipelinedRequestsInOrderAndGarbageAfterThemWith400() throws Exception {
        serve(0, 60_000);
        try (Socket s = connect()) {
            // Several maps each: stock sends a response's maps one after another, so answers that overlapped would mix.
            s.getOutputStream().write(ShuffleWire.concat(request(ME, 0, 1, 2), request(ME, 2, 1), request(ALSO_ME, 1, 0),
                    "\u0000\u0001 not HTTP\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
            ResponseReader in = reader(s);
            assertServed(in.next(), ME, 0, 1, 2);
            assertServed(in.next(), ME, 2, 1);
            assertServed(in.next(), ALSO_ME, 1, 0);
            ShuffleHttp.Response garbage = in.next();
            assertEquals(400, garbage.status(), "garbage after three kept-alive requests");
            assertEquals(ME, garbage.head().field(TipcShuffleConfig.SERVER_HEADER), "no target: the first name");
        }
        assertEquals(7, settled(7, metrics::outputsOk));
        assertEquals(7L * PARTITION, settled(7L * PARTITION, metrics::outputBytes));
        assertEquals(1, settled(1, metrics::requestsRejected));
    }

    @Test
    void aRequestForAnotherServerGets421AndNoMapOutput() throws Exception {
        serve(0, 60_000);
        try (Socket s = connect()) {
            s.getOutputStream().write(request("10.0.0.9:13562", 0));
            ShuffleHttp.Response r = reader(s).next();
            assertEquals(421, r.status(), r.text());
            assertEquals(ME, r.head().field(TipcShuffleConfig.SERVER_HEADER));
            assertTrue(r.text().contains("10.0.0.9:13562"), r.text());
            assertFalse(r.text().contains(ALSO_ME), "the 421 lists none of the server's addresses: " + r.text());
            assertEquals(-1, s.getInputStream().read(), "closed after the refusal");
        }
        assertEquals(0, metrics.outputsOk());
    }

    /** The reducer's proof that it reached a holder of the job token, before it reads the map output. */
    @Test
    void aBoundRequestIsAnsweredWithTheReplyBindingOfItsNonceAndThisSocket() throws Exception {
        serve(0, 60_000);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        HttpHead request = ShuffleHttp.boundRequest(uri, ME, outputs.key, server());
        try (Socket s = connect()) {
            s.getOutputStream().write(request.encode());
            ShuffleHttp.Response r = reader(s).next();
            assertServed(r, ME, 0);
            String reply = r.head().field(ChannelBinding.REPLY_HEADER);
            assertTrue(ChannelBinding.replyVerifies(outputs.key, request.field(ChannelBinding.NONCE_HEADER), server(),
                    reply), "reply binding " + reply);
            assertFalse(ChannelBinding.replyVerifies(outputs.key, ChannelBinding.nonce(), server(), reply),
                    "bound to this request's nonce");
        }
    }

    /**
     * Our reducer sends no UrlHash over TIPC, which would open stock's HTTP/TCP port to whoever bound the name: the
     * server gives stock's handler the UrlHash the stock fetcher makes, in place of any the request carries, so the
     * ReplyHash is the one the stock fetcher checks, on every Hadoop this test runs against.
     */
    @Test
    void aBoundRequestNeedsNoUrlHashAndItsReplyHashIsTheStockFetchersOwn() throws Exception {
        serve(0, 60_000);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        String fetchers = ShuffleWire.urlHash(uri, httpPort, outputs.key);
        List<HttpHead> requests = List.of(ShuffleHttp.boundRequest(uri, ME, outputs.key, server()),
                ShuffleHttp.boundRequest(uri, ME, outputs.key, server(), SecureShuffleUtils.HTTP_HEADER_URL_HASH,
                        ShuffleWire.urlHash(uri, httpPort, ShuffleWire.key("another job"))));
        for (HttpHead request : requests) {
            try (Socket s = connect()) {
                s.getOutputStream().write(request.encode());
                ShuffleHttp.Response r = reader(s).next();
                assertServed(r, ME, 0);
                SecureShuffleUtils.verifyReply(r.head().field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), fetchers,
                        outputs.key);
            }
        }
    }

    @Test
    void refusalsNameTheServerTheRequestMeant() throws Exception {
        serve(0, 60_000);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        try (Socket s = connect()) {
            s.getOutputStream().write(ShuffleHttp.boundRequest(uri, ALSO_ME, ShuffleWire.key("another job"), server())
                    .encode());
            ShuffleHttp.Response r = reader(s).next();
            assertEquals(401, r.status(), r.text());
            assertEquals(ALSO_ME, r.head().field(TipcShuffleConfig.SERVER_HEADER));
        }
    }

    /**
     * Stock's 401 text tells an unknown job from a bad hash; any process can ask over TIPC, so all get one answer:
     * a binding under another job's token, an unknown job, a request with no channel binding (though its UrlHash
     * is stock's), and one bound to another socket (relayed or replayed).
     */
    @Test
    void anUnknownJobAnotherJobsTokenAndAMissingOrMisboundBindingGetTheSameAnswer() throws Exception {
        serve(0, 60_000);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        String unknownJob = ShuffleWire.uri("job_1700000000000_0099", 0, ShuffleWire.map(0));
        List<byte[]> refused = List.of(
                ShuffleHttp.boundRequest(uri, ME, ShuffleWire.key("another job"), server()).encode(),
                ShuffleHttp.boundRequest(unknownJob, ME, outputs.key, server()).encode(),
                ShuffleHttp.request(uri, ShuffleWire.urlHash(uri, httpPort, outputs.key), ME).encode(),
                ShuffleHttp.boundRequest(uri, ME, outputs.key, "tcp:1").encode());
        for (byte[] request : refused) {
            try (Socket s = connect()) {
                s.getOutputStream().write(request);
                ShuffleHttp.Response r = reader(s).next();
                assertEquals(401, r.status(), r.text());
                assertEquals(UnauthorizedAnswer.TEXT, r.text());
            }
        }
    }

    @Test
    void aHeadNettyCannotParseIsRefusedThoughItsUrlHashVerifies() throws Exception {
        serve(0, 60_000);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        String unbound = new String(ShuffleHttp.request(uri, ShuffleWire.urlHash(uri, httpPort, outputs.key), ME).encode(),
                StandardCharsets.ISO_8859_1);
        // What a relay could send: the binding spoiled into a header name no HTTP parser accepts.
        byte[] spoiled = unbound.replace("\r\n\r\n", "\r\nX-TIPC Shuffle-Binding: x\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        try (Socket s = connect()) {
            s.getOutputStream().write(spoiled);
            ShuffleHttp.Response r = reader(s).next();
            assertEquals(400, r.status(), r.text());
            assertEquals(0, r.frames().size(), "no map output");
        }
    }

    @Test
    void aRequestOnAConnectionOverTheLimitGets429WithRetryAfterAndTheServersName() throws Exception {
        serve(1, 60_000);
        try (Socket first = connect()) {
            first.getOutputStream().write(request(ME, 0));
            assertServed(reader(first).next(), ME, 0);
            Socket second = connect();
            second.getOutputStream().write(request(ALSO_ME, 1));
            ShuffleHttp.Response refused = reader(second).next();
            second.close();
            assertEquals(429, refused.status());
            assertNotNull(refused.head().field(ShuffleHandler.RETRY_AFTER_HEADER), "stock's back-off");
            assertEquals(ALSO_ME, refused.head().field(TipcShuffleConfig.SERVER_HEADER), "the server asked for");
        }
    }

    @Test
    void connectionsOverTheOpenConnectionCapAreClosedAtAcceptAndSilentOnesHoldTheirPlace() throws Exception {
        serve(handler, 0, 60_000, 60_000, 2, TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS_PER_NODE);
        try (Socket silentA = connect(); Socket silentB = connect()) {
            for (int i = 0; i < 3; i++) {
                try (Socket over = connect()) {
                    assertClosedWithoutAnswer(over);
                }
            }
            assertEquals(3, metrics.connectionsOverCap(), "closed at accept, beyond two silent connections");
            silentA.close();
            assertEquals(1, settled(1, metrics::openConnections), "open after silentA's close");
            assertServed(servedOnceAdmitted(), ME, 0);
        }
    }

    @Test
    void eachPeerNodeHoldsAtMostItsShareAndTheCapBoundsThemAllTogether() throws Exception {
        serve(handler, 0, 60_000, 60_000, 3, 2);
        try (Socket a1 = connect(NODE_A); Socket a2 = connect(NODE_A); Socket b1 = connect(NODE_B)) {
            assertEquals(3, settled(3, metrics::openConnections), "admitted: two from A, one from B");
            try (Socket a3 = connect(NODE_A)) {
                assertClosedWithoutAnswer(a3);
            }
            assertEquals(1, metrics.connectionsOverNodeCap(), "A's third, over A's share");
            assertEquals(0, metrics.connectionsOverCap());
            try (Socket c1 = connect(NODE_C)) {
                assertClosedWithoutAnswer(c1);
            }
            assertEquals(1, metrics.connectionsOverCap(), "C's first, over the cap of all three");
            assertEquals(1, metrics.connectionsOverNodeCap());
            a1.close();
            assertEquals(2, settled(2, metrics::openConnections), "open after a1's close");
            assertServed(servedOnceAdmitted(NODE_A), ME, 0); // A's place is given back on a close
        }
    }

    /**
     * A flood from one node that keeps replacing its connections, closing the oldest as it opens more, holds
     * its node's share; another node's requests are served on every new connection while it goes on.
     */
    @Test
    void anotherNodesReducerIsServedWhileOneNodeFloodsTheServer() throws Exception {
        serve(handler, 0, 60_000, 60_000, 6, 2);
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger opened = new AtomicInteger();
        Thread flood = new Thread(() -> {
            Deque<Socket> held = new ArrayDeque<>();
            try {
                while (flooding.get()) {
                    held.add(connect(NODE_A));
                    opened.incrementAndGet();
                    if (held.size() > 20) {
                        held.remove().close();
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                held.forEach(TipcPipelineTest::closeQuietly);
            }
        }, "flood-from-node-A");
        flood.start();
        try {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (metrics.connectionsOverNodeCap() + metrics.connectionsOverCap() == 0) {
                assertTrue(System.nanoTime() < deadline, "the flood met a bound within 5 s");
                Thread.sleep(20);
            }
            for (int fetch = 0; fetch < 5; fetch++) {
                try (Socket s = connect(NODE_B)) {
                    s.getOutputStream().write(request(ME, fetch % MAPS));
                    assertServed(reader(s).next(), ME, fetch % MAPS);
                }
            }
            assertTrue(flood.isAlive(), "the flood went on throughout");
        } finally {
            flooding.set(false);
            flood.join();
        }
        System.out.printf("flood from node A: %d connections opened, %d closed at accept over its share, %d over"
                + " the cap%n", opened.get(), metrics.connectionsOverNodeCap(), metrics.connectionsOverCap());
        assertEquals(0, metrics.connectionsOverCap(), "node A's share left room under the cap");
    }

    /**
     * A request for map 0 on a new connection, connecting again while the cap closes it at accept: the cap
     * frees a closed connection's place in its close listener, which may run after the metrics saw the close.
     */
    private ShuffleHttp.Response servedOnceAdmitted() throws Exception {
        return servedOnceAdmitted(InetAddress.getLoopbackAddress());
    }

    private ShuffleHttp.Response servedOnceAdmitted(InetAddress from) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try (Socket s = connect(from)) {
                s.getOutputStream().write(request(ME, 0));
                return reader(s).next();
            } catch (IOException closedAtAccept) {
                if (attempt == 100) {
                    throw closedAtAccept;
                }
                Thread.sleep(50);
            }
        }
    }

    @Test
    void refusedConnectionsAreClosedEvenWhenTheReducerLeavesFirst() throws Exception {
        serve(0, 60_000);
        Set<String> before = Testbed.openSockets(); // sockets only: the JVM may open a jar meanwhile
        for (int i = 0; i < 200; i++) {
            try (Socket s = connect()) { // gone as soon as the status line is read, often before the server's close
                s.getOutputStream().write(request("10.0.0.9:13562", 1));
                assertEquals("HTTP/1.1 421", new String(s.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1));
            }
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!Testbed.openSockets().equals(before) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(before, Testbed.openSockets(), "sockets after 200 refused connections");
    }

    @Test
    void aConnectionWithoutACompleteRequestIsClosedAfterTheRequestTimeout() throws Exception {
        serve(handler, 0, 60_000, 1_000);
        try (Socket skipped = connect(); Socket unfinished = connect(); Socket silent = connect()) {
            // Netty's decoder skips control characters before a request, and waits for one.
            skipped.getOutputStream().write("\u0000\n\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            byte[] head = request(ME, 0);
            unfinished.getOutputStream().write(Arrays.copyOf(head, head.length - 2));
            for (Socket s : List.of(skipped, unfinished, silent)) {
                assertClosedWithoutAnswer(s);
            }
            // A kept-alive connection waits for its next request as long, and no longer.
            try (Socket kept = connect()) {
                kept.getOutputStream().write(request(ME, 1));
                assertServed(reader(kept).next(), ME, 1);
                assertClosedWithoutAnswer(kept);
            }
        }
    }

    @Test
    void aReducerThatStopsReadingIsClosedAfterTheWriteTimeoutAndOthersAreServedMeanwhile() throws Exception {
        serve(0, 1_000);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
        byte[] all = ShuffleHttp.boundRequest(uri, ME, outputs.key, server()).encode();
        // So small a window that the first few KiB of the response fill it.
        try (Socket stalled = new Socket()) {
            stalled.setReceiveBufferSize(4096);
            stalled.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            stalled.getOutputStream().write(all);
            Thread.sleep(500);
            try (Socket other = connect()) {
                other.getOutputStream().write(request(ME, 1));
                assertServed(reader(other).next(), ME, 1);
            }
            Thread.sleep(3_000); // the write timeout, and then some
            InputStream in = stalled.getInputStream();
            long got = 0;
            byte[] buf = new byte[1 << 16];
            for (int n; (n = readOrReset(in, buf)) > 0; ) {
                got += n;
            }
            assertTrue(got < (long) MAPS * PARTITION, "closed part-way: " + got + " bytes");
        }
        assertEquals(1, settled(1, metrics::outputsFailed), "the map output under way when it was closed");
    }

    @Test
    void withEncryptedShuffleRequiredItAnswersInTlsWithStocksCertificate() throws Exception {
        serve(tlsHandler, 0, 60_000);
        try (SSLSocket s = (SSLSocket) TlsMaterial.loopback().clientContext().getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(ShuffleWire.concat(request(ME, 0, 1), request(ALSO_ME, 2)));
            ResponseReader in = reader(s);
            assertServed(in.next(), ME, 0, 1);
            assertServed(in.next(), ALSO_ME, 2);
            X509Certificate served = (X509Certificate) s.getSession().getPeerCertificates()[0];
            assertEquals("CN=127.0.0.1", served.getSubjectX500Principal().getName(), "the certificate of stock's HTTPS");
        }
        assertEquals(3, settled(3, metrics::outputsOk));
        assertEquals(3L * PARTITION, settled(3L * PARTITION, metrics::outputBytes));
    }

    @Test
    void inTlsTheRequestTimeoutStartsOnceTheHandshakeIsDone() throws Exception {
        serve(tlsHandler, 0, 60_000, 1_000);
        SSLSocketFactory tls = TlsMaterial.loopback().clientContext().getSocketFactory();
        // A handshake slower than the request timeout, as on a busy node, is then served.
        try (Socket plain = connect()) {
            Thread.sleep(2_000);
            try (SSLSocket s = (SSLSocket) tls.createSocket(plain, "127.0.0.1", port, true)) {
                s.setSoTimeout(20_000);
                s.startHandshake();
                s.getOutputStream().write(request(ME, 0));
                assertServed(reader(s).next(), ME, 0);
            }
        }
        // A handshake with no request after it is closed after the request timeout.
        try (Socket plain = connect(); SSLSocket s = (SSLSocket) tls.createSocket(plain, "127.0.0.1", port, true)) {
            s.startHandshake();
            assertClosedWithoutAnswer(s);
        }
    }

    @Test
    void withEncryptedShuffleRequiredAPlaintextRequestGetsNoResponseAndIsClosed() throws Exception {
        serve(tlsHandler, 0, 60_000);
        try (Socket s = connect()) {
            s.getOutputStream().write(request(ME, 0));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buf = new byte[1 << 16];
            for (int n; (n = readOrReset(in, buf)) > 0; ) { // until the server closes
                answer.write(buf, 0, n);
            }
            String text = answer.toString(StandardCharsets.ISO_8859_1);
            assertTrue(!text.startsWith("HTTP/") && answer.size() < 1024, "no HTTP response, at most a TLS alert: " + text);
        }
        assertEquals(0, metrics.outputsOk());
    }

    /**
     * A server metric once it has counted what the client already read: the server counts a map output
     * when its write completes, which may be just after the reducer has its bytes. Polls up to 5 s.
     */
    private static long settled(long expected, LongSupplier metric) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (metric.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return metric.getAsLong();
    }

    /** The server closes {@code s} within 5 s (4 over the test's request timeout), sending nothing more. */
    private static void assertClosedWithoutAnswer(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        try {
            assertEquals(-1, s.getInputStream().read(), "closed without an answer");
        } catch (SocketTimeoutException e) {
            fail("still open after 5 s");
        } catch (IOException reset) {
            // a reset is a close too
        }
    }

    private static int readOrReset(InputStream in, byte[] buf) {
        try {
            return in.read(buf);
        } catch (IOException e) { // a reset is a close too
            return -1;
        }
    }

    private Socket connect() throws IOException {
        return connect(InetAddress.getLoopbackAddress());
    }

    /** A connection from {@code from}, which {@link #CLIENT_ADDRESS} takes for its peer node. */
    private Socket connect(InetAddress from) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        s.setSoTimeout(20_000);
        return s;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // the flood's own socket: nothing to keep
        }
    }

    private static ResponseReader reader(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        return new ResponseReader(dst -> {
            int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
            if (n > 0) {
                dst.position(dst.position() + n);
            }
            return n;
        });
    }

    /** The server end of every connection to this test's server, as {@link #LOOPBACK_PORT} names it. */
    private String server() {
        return "tcp:" + port;
    }

    private byte[] request(String target, int... maps) throws IOException {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, Arrays.stream(maps).mapToObj(ShuffleWire::map).toArray(String[]::new));
        return ShuffleHttp.boundRequest(uri, target, outputs.key, server()).encode();
    }

    private static void assertServed(ShuffleHttp.Response r, String server, int... maps) {
        assertEquals(200, r.status(), r.text());
        assertEquals(server, r.head().field(TipcShuffleConfig.SERVER_HEADER));
        assertEquals(maps.length, r.frames().size());
        for (int i = 0; i < maps.length; i++) {
            assertEquals(ShuffleWire.map(maps[i]), r.frames().get(i).mapId());
            CRC32C crc = new CRC32C();
            crc.update(r.frames().get(i).data());
            assertEquals(outputs.crc(maps[i], 0), crc.getValue(), "map " + maps[i]);
        }
    }

}
