package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TlsMaterial;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.tipc.TipcAvailability;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.apache.hadoop.util.Progress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import javax.crypto.SecretKey;

import static io.hadooptipc.testbed.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * The stock {@code Fetcher}'s own fetch loop, as a {@link TipcFetcher} runs it, over a
 * socket pair standing in for TIPC, with Hadoop's real {@link ShuffleSchedulerImpl}:
 * what each response over TIPC leads to in stock terms (back-off, failed copy,
 * delivered map outputs), that none of them is a fallback, and that the loop reads a
 * response exactly to its end, so that its stream carries the host's next fetch. With
 * encrypted shuffle: TLS over TIPC with the job's SSL settings (a TLS server on loopback TCP
 * standing in for TIPC), falling back to the stock HTTPS connection when TLS fails; on links
 * declared encrypted, plain TIPC where published and the stock HTTPS connection elsewhere.
 */
class TipcFetcherTest {
    private static final TaskAttemptID REDUCE = TaskAttemptID.forName("attempt_1700000000000_0001_r_000000_0");
    private static final SecretKey KEY = SocketPairTransport.JOB_TOKEN;
    private static final byte[][] OUTPUTS = {"first map".getBytes(), new byte[50_000], "third".getBytes()};
    private static final TipcAvailability TIPC_UP =
            new TipcAvailability(TipcAvailability.Level.CLUSTER, "test", 0, 1);

    private final CountingReporter reporter = new CountingReporter();
    private final Counters counters = new Counters();
    private final List<Throwable> reported = new CopyOnWriteArrayList<>();
    private final Map<TaskAttemptID, byte[]> merged = new ConcurrentHashMap<>();
    private final JobConf job = new JobConf();
    private ShuffleSchedulerImpl<Text, Text> scheduler;
    private StubHttpServer tcp;
    private SocketPairTransport tipc;
    /** With TLS over TIPC: a TLS server standing in for TIPC, and the fetcher's TLS over it. */
    private TlsPeerTransport tlsPeer;
    private SSLFactory ssl;
    private StreamTransport tls;
    private final StreamPool streams = new StreamPool(
            (name, host, timeouts) -> (tls != null ? tls : tipc).open(name, host, timeouts), new TransferCounters(reporter),
            1, 10_000);
    private String self;

    @BeforeEach
    void start() throws IOException {
        job.setNumMapTasks(OUTPUTS.length);
        scheduler = new ShuffleSchedulerImpl<>(job, mock(TaskStatus.class), REDUCE, reported::add,
                new Progress(), counter("shuffled maps"), counter("shuffle bytes"), counter("failed shuffles"));
        tcp = new StubHttpServer(500, Map.of(), "HTTP/TCP was not to be asked".getBytes());
        self = ShuffleServiceName.of(InetAddress.getLoopbackAddress(), tcp.port()).toString();
    }

    @AfterEach
    void stop() throws IOException, InterruptedException {
        streams.close();
        scheduler.close();
        tcp.close();
        if (tipc != null) {
            tipc.close();
        }
        if (tlsPeer != null) {
            tlsPeer.close();
            ssl.destroy();
        }
    }

    @Test
    void a429OverTipcBacksOffForItsRetryAfterOnTheStockPathWithoutFallingBack() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                CannedResponse.of(429, null, Map.of("Retry-After", "1500"), new byte[0])));
        long start = System.nanoTime();
        MapHost host = fetchOnce();

        assertEquals(MapHost.State.PENALIZED, host.getState());
        assertEquals(0, counter("failed shuffles").getValue(), "TryAgainLater is no failed copy");
        assertEquals(0, ioErrors());
        MapHost again = nextHost();
        long penalty = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(host, again);
        assertTrue(penalty >= 1490, "the host came back after " + penalty + " ms, before its Retry-After");
        assertNoFallback();
        assertEquals(List.of(), reported);
    }

    @Test
    void a500OverTipcIsAFailedCopyUnderTheStockRulesWithoutFallingBack() throws Exception {
        tipc = SocketPairTransport.answering(SocketPairTransport.replying(
                CannedResponse.of(500, self, Map.of(), "no such map output".getBytes())));
        fetchOnce();

        assertEquals(OUTPUTS.length, counter("failed shuffles").getValue(), "each map of the request failed once");
        assertEquals(1, ioErrors());
        assertNoFallback();
    }

    @Test
    void a200OverTipcHandsEveryMapOutputToTheMerger() throws Exception {
        tipc = SocketPairTransport.answering(servingRequestedMaps(false));
        fetchOnce();

        for (int m = 0; m < OUTPUTS.length; m++) {
            assertArrayEquals(OUTPUTS[m], merged.get(TaskAttemptID.forName(map(m))), "map " + m);
        }
        assertEquals(OUTPUTS.length, counter("shuffled maps").getValue());
        assertEquals(OUTPUTS.length, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertNoFallback();
        assertEquals(List.of(), reported);
    }

    @Test
    void theStockLoopReadsAResponseToItsEndSoTheHostsNextFetchReusesTheStream() throws Exception {
        tipc = SocketPairTransport.keepingAlive(servingRequestedMaps(true));
        known(0, 1);
        turn();
        known(2); // another map of the host completes
        turn();

        for (int m = 0; m < OUTPUTS.length; m++) {
            assertArrayEquals(OUTPUTS[m], merged.get(TaskAttemptID.forName(map(m))), "map " + m);
        }
        assertEquals(2, tipc.requests.size());
        assertEquals(1, tipc.opened.size(), "the second fetch went on the first one's stream");
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_REUSED));
        assertEquals(0, tcp.requests.get());
        assertNoFallback();
        assertEquals(List.of(), reported);
    }

    @Test
    void withEncryptedShuffleAPublishingHostIsFetchedInTlsOverTipcWithTheJobsSslSettingsAndItsStreamKept() throws Exception {
        HttpsShuffleServer.configure(job);
        try (HttpsShuffleServer https = new HttpsShuffleServer(KEY, ShuffleWire.body(0, OUTPUTS))) {
            overTls(TlsMaterial.loopback().server, https.port());
            known("https", https.port(), 0, 1);
            turn();
            known("https", https.port(), 2); // another map of the host completes
            turn();

            assertAllMerged();
            assertEquals(2, tlsPeer.requests.size());
            assertEquals(1, tlsPeer.opened.size(), "the second fetch went on the first one's TLS stream");
            assertEquals(1, reporter.get(TipcShuffleCounter.TLS_STREAMS), "one handshake");
            assertEquals(OUTPUTS.length, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
            assertEquals(0, https.requests.get(), "none over HTTPS");
            assertNoFallback();
            assertEquals(List.of(), tlsPeer.serverFailures);
            assertEquals(List.of(), reported);
        }
    }

    @Test
    void anImpostorHoldingTheTipcNameFailsTlsAndTheHostIsFetchedOverHttpsUnderItsOwnReason() throws Exception {
        assertTlsRefusedAndFetchedOverHttps(TlsMaterial.loopback().impostor());
    }

    @Test
    void aTrustedCertificateForAnotherHostFailsTlsAsHttpsWouldAndTheHostIsFetchedOverHttps() throws Exception {
        assertTlsRefusedAndFetchedOverHttps(TlsMaterial.loopback().otherHost());
    }

    /** TLS over TIPC to a server with the key pair in {@code keyStore} fails, and the fetch goes on over HTTPS. */
    private void assertTlsRefusedAndFetchedOverHttps(Path keyStore) throws Exception {
        HttpsShuffleServer.configure(job);
        try (HttpsShuffleServer https = new HttpsShuffleServer(KEY, ShuffleWire.body(0, OUTPUTS))) {
            overTls(keyStore, https.port());
            fetchAll("https", https.port());

            assertEquals(1, tlsPeer.opened.size(), "TIPC was tried");
            assertEquals(List.of(), tlsPeer.requests, "no request to a server the job does not trust");
            assertEquals(0, reporter.get(TipcShuffleCounter.TLS_STREAMS));
            assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_TLS_FAILED));
            assertEquals(1, https.requests.get(), "one request over HTTPS");
            assertAllMerged();
            assertEquals(OUTPUTS.length, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
            assertEquals(0, ioErrors());
            assertEquals(List.of(), reported);
        }
    }

    /** TIPC streams in TLS with the job's client SSL settings, to a TLS server answering as the host of {@code port}. */
    private void overTls(Path keyStore, int port) throws Exception {
        String server = ShuffleServiceName.of(InetAddress.getLoopbackAddress(), port).toString();
        tlsPeer = new TlsPeerTransport(keyStore, request -> answer(request, server, true));
        ssl = new SSLFactory(SSLFactory.Mode.CLIENT, job);
        ssl.init();
        tls = new TlsTransport(tlsPeer, ssl, new TransferCounters(reporter));
    }

    @Test
    void withEncryptedShuffleOnLinksDeclaredEncryptedAPublishingHostOfAnHttpsUrlIsFetchedOverTipc() throws Exception {
        HttpsShuffleServer.configure(job);
        job.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, true);
        try (HttpsShuffleServer https = new HttpsShuffleServer(KEY, ShuffleWire.body(0, OUTPUTS))) {
            tipc = SocketPairTransport.answering(servingRequestedMaps(
                    ShuffleServiceName.of(InetAddress.getLoopbackAddress(), https.port()).toString(), false));
            fetchAll("https", https.port());

            assertEquals(1, tipc.opened.size(), "one request over TIPC");
            assertEquals(0, https.requests.get(), "none over HTTPS");
            assertAllMerged();
            assertEquals(OUTPUTS.length, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
            assertNoFallback();
        }
    }

    @Test
    void withEncryptedShuffleAHostThatDoesNotPublishIsFetchedOverHttpsWithTheJobsSslSettings() throws Exception {
        HttpsShuffleServer.configure(job);
        job.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, true);
        try (HttpsShuffleServer https = new HttpsShuffleServer(KEY, ShuffleWire.body(0, OUTPUTS))) {
            tipc = SocketPairTransport.refusing(new ServiceNotPublishedException(
                    ShuffleServiceName.of(InetAddress.getLoopbackAddress(), https.port()), null));
            fetchAll("https", https.port());

            assertEquals(List.of(), reported);
            assertEquals(0, ioErrors(), "the job's trust store let the fetcher reach the HTTPS server");
            assertEquals(1, https.requests.get(), "one request over HTTPS");
            assertAllMerged();
            assertEquals(OUTPUTS.length, reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS));
            assertEquals(1, reporter.get(TipcShuffleCounter.FALLBACK_NOT_PUBLISHED));
        }
    }

    /** One turn of the stock fetch loop for a host with every map output: what {@code Fetcher.run} does with it. */
    private MapHost fetchOnce() throws Exception {
        known(IntStream.range(0, OUTPUTS.length).toArray());
        MapHost host = turn();
        assertEquals(1, tipc.opened.size(), "one request over TIPC");
        assertEquals(0, tcp.requests.get(), "none over HTTP/TCP");
        return host;
    }

    @Test
    void aHostHeldForNodeLossIsNotFetchedFromItsMapsStayKnownAndItIsParkedUntilReleased() throws Exception {
        scheduler.close();
        TipcShuffleScheduler<Text, Text> held = new TipcShuffleScheduler<>(job, mock(TaskStatus.class), REDUCE,
                reported::add, new Progress(), counter("shuffled maps"), counter("shuffle bytes"),
                counter("failed shuffles"));
        scheduler = held;
        tipc = SocketPairTransport.answering(servingRequestedMaps(false));
        known(0, 1, 2);
        MapHost host = scheduler.getHost();
        held.held(host.getHostName()); // its TIPC node lost between the hand-out and the fetch
        new OneHostFetcher(job, scheduler, merger(), reporter, reported::add, streams).copyFrom(host);
        scheduler.freeHost(host);

        assertEquals(List.of(), tipc.opened, "no TIPC connect");
        assertEquals(0, tcp.requests.get(), "nor one over HTTP/TCP");
        assertEquals(0, counter("failed shuffles").getValue());
        assertEquals(MapHost.State.PENALIZED, host.getState(), "parked");
        held.released(host.getHostName());
        assertEquals(OUTPUTS.length, scheduler.getMapsForHost(nextHost()).size(), "its map outputs still known");
        assertEquals(List.of(), reported);
    }

    /** The scheduler learns that these maps' outputs are on the host. */
    private void known(int... maps) {
        known("http", tcp.port(), maps);
    }

    /** The same for a host whose URLs have {@code scheme} and {@code port}, however the fetch goes. */
    private void known(String scheme, int port, int... maps) {
        String baseUrl = scheme + "://127.0.0.1:" + port + "/mapOutput?job=" + ShuffleWire.JOB + "&reduce=0&map=";
        for (int m : maps) {
            scheduler.addKnownMapOutput("127.0.0.1:" + port, baseUrl, TaskAttemptID.forName(map(m)));
        }
    }

    /** One turn of the fetch loop for a host of {@code scheme} and {@code port} with every map output. */
    private MapHost fetchAll(String scheme, int port) throws Exception {
        known(scheme, port, IntStream.range(0, OUTPUTS.length).toArray());
        return turn();
    }

    private void assertAllMerged() {
        for (int m = 0; m < OUTPUTS.length; m++) {
            assertArrayEquals(OUTPUTS[m], merged.get(TaskAttemptID.forName(map(m))), "map " + m);
        }
        assertEquals(OUTPUTS.length, counter("shuffled maps").getValue());
    }

    /** A fetcher takes the next host from the scheduler, fetches what it has, and frees it. */
    private MapHost turn() throws Exception {
        MapHost host = scheduler.getHost();
        new OneHostFetcher(job, scheduler, merger(), reporter, reported::add, streams).copyFrom(host);
        scheduler.freeHost(host);
        return host;
    }

    /** A server's answer with the maps the request names, signed with the job's key. */
    private SocketPairTransport.Peer servingRequestedMaps(boolean keepAlive) {
        return servingRequestedMaps(self, keepAlive);
    }

    /** The same, answered as {@code server}. */
    private SocketPairTransport.Peer servingRequestedMaps(String server, boolean keepAlive) {
        return (request, socket) -> SocketPairTransport.write(socket, answer(request, server, keepAlive));
    }

    /**
     * A 200 from {@code server} with the maps {@code request} names, signed with the job's key as our server signs
     * it: the request carries no UrlHash over TIPC, so the ReplyHash signs the one the stock fetcher made for the
     * HTTP port its Host names.
     */
    private static byte[] answer(HttpHead request, String server, boolean keepAlive) throws IOException {
        String uri = request.startLine().split(" ")[1];
        String host = request.field("Host");
        String urlHash = ShuffleWire.urlHash(uri, Integer.parseInt(host.substring(host.lastIndexOf(':') + 1)), KEY);
        Map<String, byte[]> outputs = new LinkedHashMap<>();
        for (String mapId : uri.substring(uri.indexOf("&map=") + 5).split(",")) {
            outputs.put(mapId, OUTPUTS[TaskAttemptID.forName(mapId).getTaskID().getId()]);
        }
        String reply = SecureShuffleUtils.generateHash(urlHash.getBytes(StandardCharsets.UTF_8), KEY);
        Map<String, String> fields = keepAlive
                ? Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, reply, "Connection", "keep-alive")
                : Map.of(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, reply);
        return CannedResponse.of(200, server, fields, ShuffleWire.body(0, outputs));
    }

    /** The next host the scheduler hands a fetcher, waiting out its penalty. */
    private MapHost nextHost() throws Exception {
        FutureTask<MapHost> next = new FutureTask<>(scheduler::getHost);
        Thread t = new Thread(next, "next fetcher");
        t.setDaemon(true);
        t.start();
        return next.get(30, TimeUnit.SECONDS);
    }

    /** A TipcFetcher whose one turn of the fetch loop a test can call. */
    private static final class OneHostFetcher extends TipcFetcher<Text, Text> {
        OneHostFetcher(JobConf job, ShuffleSchedulerImpl<Text, Text> scheduler, MergeManager<Text, Text> merger,
                       CountingReporter reporter, ExceptionReporter exceptions, StreamPool streams) {
            super(job, REDUCE, scheduler, merger, reporter, mock(ShuffleClientMetrics.class), exceptions, KEY,
                    PendingTransports.of(new TaskTransports(new TransportRoutes(Transport.AUTO, TIPC_UP,
                            new TransferCounters(reporter)), streams, new TransferCounters(reporter), null, null)));
        }

        void copyFrom(MapHost host) throws IOException {
            copyFromHost(host);
        }
    }

    /** A merge manager that keeps each map output's bytes, as it would in memory. */
    @SuppressWarnings("unchecked")
    private MergeManager<Text, Text> merger() {
        MergeManager<Text, Text> merger = mock(MergeManager.class);
        try {
            when(merger.reserve(any(), anyLong(), anyInt())).thenAnswer(reserve -> {
                TaskAttemptID mapId = reserve.getArgument(0);
                MapOutput<Text, Text> output = mock(MapOutput.class);
                doAnswer(shuffle -> {
                    InputStream in = shuffle.getArgument(1);
                    merged.put(mapId, in.readNBytes(Math.toIntExact((long) shuffle.getArgument(2))));
                    return null;
                }).when(output).shuffle(any(), any(), anyLong(), anyLong(), any(), any());
                return output;
            });
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return merger;
    }

    private Counters.Counter counter(String name) {
        return counters.findCounter("test", name);
    }

    private long ioErrors() {
        return reporter.getCounter("Shuffle Errors", "IO_ERROR").getValue();
    }

    private void assertNoFallback() {
        for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
            if (counter.isFallback()) {
                assertEquals(0, reporter.get(counter), counter.name());
            }
        }
    }
}
