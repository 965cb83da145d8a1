package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.tipc.Testbed;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.Fetcher;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

import javax.crypto.SecretKey;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A reducer's fetches from one shuffle server in the testbed, for the kernel tests and the
 * fetch-reuse and encrypted-shuffle benchmarks:
 * our handler started in a node, connections opened and signed as a reducer's fetcher opens
 * and signs them, and the cost of fetching map outputs one request each, as a fetcher does
 * when maps complete one by one.
 */
public final class FetchCost {
    private static final TaskAttemptID REDUCE = TaskAttemptID.forName("attempt_1700000000000_0001_r_000000_0");

    /**
     * One series of fetches: wall time and the fetching thread's CPU in total, what the streams did,
     * and how many map outputs came over TIPC and over HTTP/TCP (by our counters; none for the stock fetcher).
     */
    public record Measured(int fetches, long wallNanos, long cpuNanos, long streamsOpened, long streamsReused,
                           long tipcMapOutputs, long tcpMapOutputs) {
    }

    private FetchCost() {
    }

    /** Our mapreduce_shuffle handler in testbed node {@code node}, serving {@code outputs} on an ephemeral port. */
    public static TipcShuffleHandler serve(String node, MapOutputFixture outputs, YarnConfiguration conf) throws Exception {
        return Testbed.on(node, () -> start(outputs, conf));
    }

    /** Our mapreduce_shuffle handler in this thread's node, serving {@code outputs} on an ephemeral port. */
    public static TipcShuffleHandler start(MapOutputFixture outputs, YarnConfiguration conf) throws Exception {
        return start(outputs, conf, 0);
    }

    /** Our mapreduce_shuffle handler in this thread's node, serving {@code outputs} on {@code port} (0: ephemeral). */
    public static TipcShuffleHandler start(MapOutputFixture outputs, YarnConfiguration conf, int port) throws Exception {
        return start(new TipcShuffleHandler(), outputs, conf, port);
    }

    /** Starts {@code h}, a handler of ours, in this thread's node, serving {@code outputs} on {@code port}. */
    public static <H extends TipcShuffleHandler> H start(H h, MapOutputFixture outputs, YarnConfiguration conf, int port)
            throws IOException {
        conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, port);
        h.setAuxiliaryLocalPathHandler(outputs.localDirs());
        h.init(conf);
        h.start();
        h.initializeApplication(outputs.application());
        return h;
    }

    /** Stops, in {@code node}, a handler started there (by {@link #serve} or alike); nothing if it never started. */
    public static void stop(String node, Service handler) throws Exception {
        if (handler != null) {
            Testbed.on(node, () -> {
                handler.stop();
                return null;
            });
        }
    }

    /**
     * Fetches each map's partition for reduce 0 in a request of its own, from this thread's node,
     * reading each response to its end; TIPC only, so a failure fails the run.
     */
    public static Measured fetchEach(String serverIp, int port, SecretKey key, List<String> mapIds, boolean reuse)
            throws Exception {
        try (Fetching tipcOnly = new Fetching(null)) {
            tipcOnly.tipc(new TransportRoutes(Transport.TIPC, Tipc.availability(), tipcOnly.counters),
                    streams(tipcOnly.counters, reuse));
            return tipcOnly.fetchEach("http", serverIp, port, key, mapIds, null);
        }
    }

    /**
     * A reduce task's fetching for a job, with the connections its fetchers open: the stock Fetcher's
     * (HTTP, or HTTPS with the job's SSL settings: Hadoop's own {@code openConnection} sets them) or
     * ours (a {@link TipcFetcher}'s: over TIPC where the host publishes, the stock one elsewhere, with
     * routes and streams as our reduce task sets them up).
     */
    public static final class Fetching implements Closeable {
        private final CountingReporter reporter = new CountingReporter();
        private final TransferCounters counters = new TransferCounters(reporter);
        private final JobConf job;
        private StockConnections connections;
        private TransportRoutes routes;
        private StreamPool streams;
        /** What {@link #ours} set up as a reduce task does (TLS included), closed with it. */
        private TaskTransports transports;

        private Fetching(JobConf job) {
            this.job = job;
        }

        /** The stock fetcher's connections for {@code job}. */
        public static Fetching stock(JobConf job) {
            Fetching f = new Fetching(job);
            f.connections = new StockFetcher(job, f.reporter)::open;
            return f;
        }

        /** Our fetcher's connections for {@code job}. */
        public static Fetching ours(JobConf job) throws IOException {
            Fetching f = new Fetching(job);
            TaskTransports transports = TaskTransports.start(job, f.counters);
            f.tipc(transports.routes, transports.streams);
            f.transports = transports;
            return f;
        }

        private void tipc(TransportRoutes routes, StreamPool streams) {
            this.routes = routes;
            this.streams = streams;
            if (job == null) { // TIPC only, no fetcher: nothing to fall back to
                connections = url -> new TipcShuffleConnection(url, routes, streams, counters,
                        u -> (HttpURLConnection) u.openConnection());
            } else {
                connections = new OurFetcher(job, reporter, routes, streams)::open;
            }
        }

        /**
         * Fetches each map's partition for reduce 0 in a request of its own from {@code scheme://serverIp:port},
         * checking the ShuffleHeader, the ReplyHash and, where {@code served} gives them, that the bytes are
         * those the server's file holds.
         */
        public Measured fetchEach(String scheme, String serverIp, int port, SecretKey key, List<String> mapIds,
                                  Function<String, byte[]> served) throws Exception {
            long opened = reporter.get(TipcShuffleCounter.STREAMS_OPENED);
            long reused = reporter.get(TipcShuffleCounter.STREAMS_REUSED);
            long tipc = reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS);
            long tcp = reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long cpu = threads.getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            for (String mapId : mapIds) {
                String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, mapId);
                HttpURLConnection c = connections.open(new URL(scheme, serverIp, port, uri));
                String hash = sign(c, uri, port, key);
                if (c.getResponseCode() != 200) {
                    throw new IOException("fetching " + mapId + ": " + c.getResponseCode() + " " + c.getResponseMessage());
                }
                SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, key);
                try (InputStream in = c.getInputStream()) {
                    List<ShuffleWire.Frame> frames = ShuffleWire.frames(in);
                    if (frames.size() != 1 || !frames.get(0).mapId().equals(mapId)) {
                        throw new IOException("fetching " + mapId + ": not its one map output");
                    }
                    if (served != null && !Arrays.equals(served.apply(mapId), frames.get(0).data())) {
                        throw new IOException("fetching " + mapId + ": not the bytes of the file served");
                    }
                }
            }
            return new Measured(mapIds.size(), System.nanoTime() - wall, threads.getCurrentThreadCpuTime() - cpu,
                    reporter.get(TipcShuffleCounter.STREAMS_OPENED) - opened,
                    reporter.get(TipcShuffleCounter.STREAMS_REUSED) - reused,
                    reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS) - tipc,
                    reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS) - tcp);
        }

        @Override
        public void close() throws IOException {
            if (transports != null) {
                transports.close();
                return;
            }
            try (Closeable r = routes; Closeable s = streams) {
                connections = null; // both closed, the streams first
            }
        }
    }

    /** The stock Fetcher, for the connection it opens; never started. */
    private static final class StockFetcher extends Fetcher<Object, Object> {
        StockFetcher(JobConf job, CountingReporter reporter) {
            super(job, REDUCE, null, null, reporter, null, null, null);
        }

        synchronized HttpURLConnection open(URL url) throws IOException {
            openConnection(url);
            return connection;
        }
    }

    /** Our fetcher, for the connection it opens; never started. */
    private static final class OurFetcher extends TipcFetcher<Object, Object> {
        OurFetcher(JobConf job, CountingReporter reporter, TransportRoutes routes, StreamPool streams) {
            super(job, REDUCE, null, null, reporter, null, null, null, routes, streams);
        }

        synchronized HttpURLConnection open(URL url) {
            openConnection(url);
            return connection;
        }
    }

    /** A reduce task's TIPC streams, one kept alive per host or none. */
    static StreamPool streams(TransferCounters counters, boolean reuse) {
        return new StreamPool(new TipcStreamTransport(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), counters, reuse ? 1 : 0,
                TipcShuffleConfig.DEFAULT_REUSE_IDLE_TIMEOUT_MS);
    }

    /** A connection for {@code uri} on the server, with the headers the stock fetcher sets and a 60 s read timeout. */
    static TipcShuffleConnection connection(String serverIp, int port, String uri, SecretKey key, TransportRoutes routes,
                                            StreamPool streams, TransferCounters counters) throws IOException {
        TipcShuffleConnection c = new TipcShuffleConnection(new URL("http", serverIp, port, uri), routes, streams, counters,
                u -> (HttpURLConnection) u.openConnection());
        sign(c, uri, port, key);
        return c;
    }

    /** Sets the headers the stock fetcher sets, the UrlHash among them, and a 60 s read timeout; returns the hash. */
    private static String sign(HttpURLConnection c, String uri, int port, SecretKey key) throws IOException {
        String hash = ShuffleWire.urlHash(uri, port, key);
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, hash);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        c.setReadTimeout(60_000);
        return hash;
    }
}
