package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.StockConnections;
import io.hadooptipc.shuffle.client.TaskTransports;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.ShuffleWire;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.Fetcher;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import javax.crypto.SecretKey;

/**
 * A reducer's fetches from one shuffle server, for the fetch-reuse and encrypted-shuffle benchmarks:
 * connections opened and signed as a reducer's fetcher opens and signs them, and the cost of fetching
 * map outputs one request each, as a fetcher does when maps complete one by one.
 */
public final class FetchCost {
    private static final TaskAttemptID REDUCE = TaskAttemptID.forName("attempt_1700000000000_0001_r_000000_0");

    /**
     * One series of fetches: wall time and the fetching thread's CPU in total, what the streams did,
     * and how many map outputs came over TIPC and over HTTP/TCP (by our counters; none for the stock fetcher).
     */
    public static final class Measured {
        private final int fetches;
        private final long wallNanos;
        private final long cpuNanos;
        private final long streamsOpened;
        private final long streamsReused;
        private final long tipcMapOutputs;
        private final long tcpMapOutputs;

        public Measured(int fetches, long wallNanos, long cpuNanos, long streamsOpened, long streamsReused,
                long tipcMapOutputs, long tcpMapOutputs) {
            this.fetches = fetches;
            this.wallNanos = wallNanos;
            this.cpuNanos = cpuNanos;
            this.streamsOpened = streamsOpened;
            this.streamsReused = streamsReused;
            this.tipcMapOutputs = tipcMapOutputs;
            this.tcpMapOutputs = tcpMapOutputs;
        }

        public int fetches() {
            return fetches;
        }

        public long wallNanos() {
            return wallNanos;
        }

        public long cpuNanos() {
            return cpuNanos;
        }

        public long streamsOpened() {
            return streamsOpened;
        }

        public long streamsReused() {
            return streamsReused;
        }

        public long tipcMapOutputs() {
            return tipcMapOutputs;
        }

        public long tcpMapOutputs() {
            return tcpMapOutputs;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Measured)) {
                return false;
            }
            Measured that = (Measured) o;
            return fetches == that.fetches && wallNanos == that.wallNanos && cpuNanos == that.cpuNanos
                    && streamsOpened == that.streamsOpened && streamsReused == that.streamsReused
                    && tipcMapOutputs == that.tipcMapOutputs && tcpMapOutputs == that.tcpMapOutputs;
        }

        @Override
        public int hashCode() {
            return Objects.hash(fetches, wallNanos, cpuNanos, streamsOpened, streamsReused, tipcMapOutputs,
                    tcpMapOutputs);
        }

        @Override
        public String toString() {
            return "Measured[fetches=" + fetches + ", wallNanos=" + wallNanos + ", cpuNanos=" + cpuNanos
                    + ", streamsOpened=" + streamsOpened + ", streamsReused=" + streamsReused + ", tipcMapOutputs="
                    + tipcMapOutputs + ", tcpMapOutputs=" + tcpMapOutputs + "]";
        }
    }

    private FetchCost() {
    }

    /**
     * Fetches each map's partition for reduce 0 in a request of its own, from this thread's node,
     * reading each response to its end; TIPC only, so a failure fails the run.
     */
    public static Measured fetchEach(String serverIp, int port, SecretKey key, List<String> mapIds, boolean reuse)
            throws Exception {
        JobConf tipcOnly = new JobConf(false);
        tipcOnly.set(TipcShuffleConfig.TRANSPORT, "tipc");
        tipcOnly.setBoolean(TipcShuffleConfig.TOPOLOGY_ENABLED, false);
        tipcOnly.setBoolean(TipcShuffleConfig.REUSE_ENABLED, reuse);
        tipcOnly.setInt(TipcShuffleConfig.REUSE_MAX_IDLE_PER_HOST, 1);
        try (Fetching f = new Fetching()) {
            f.transports = TaskTransports.start(tipcOnly, f.reporter);
            f.connections = (url, jobToken) -> f.transports.open(url, u -> (HttpURLConnection) u.openConnection(),
                    jobToken);
            return f.fetchEach("http", serverIp, port, key, mapIds, null);
        }
    }

    /**
     * A reduce task's fetching for a job, with the connections its fetchers open: the stock Fetcher's
     * (HTTP, or HTTPS with the job's SSL settings: Hadoop's own {@code openConnection} sets them) or
     * ours (a TipcFetcher's: over TIPC where the host publishes, the stock one elsewhere, with the
     * transports our reduce task sets up).
     */
    public static final class Fetching implements Closeable {
        private final CountingReporter reporter = new CountingReporter();
        /** Opens a fetch's connection: the stock fetcher's own, or ours over it. */
        private Connections connections;
        /** What {@link #ours} set up as a reduce task does (TLS included), closed with it; null for stock. */
        private TaskTransports transports;

        private Fetching() {
        }

        /** The stock fetcher's connections for {@code job}. */
        public static Fetching stock(JobConf job) {
            Fetching f = new Fetching();
            StockConnections stock = new StockFetcher(job, f.reporter)::open;
            f.connections = (url, jobToken) -> stock.open(url);
            return f;
        }

        /** Our fetcher's connections for {@code job}. */
        public static Fetching ours(JobConf job) throws IOException {
            Fetching f = new Fetching();
            f.transports = TaskTransports.start(job, f.reporter);
            StockConnections stock = new StockFetcher(job, f.reporter)::open;
            f.connections = (url, jobToken) -> f.transports.open(url, stock, jobToken);
            return f;
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
                try (InputStream in = request(scheme, serverIp, port, key, mapId)) {
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

        /**
         * Fetches every one of {@code mapIds}' partitions for reduce 0 in one request, {@code requests} times, reading
         * each response as the stock fetcher reads it: for counting what reading costs, so only the map ids are checked.
         */
        public void fetchAll(String scheme, String serverIp, int port, SecretKey key, List<String> mapIds, int requests)
                throws Exception {
            String[] maps = mapIds.toArray(new String[0]);
            for (int r = 0; r < requests; r++) {
                try (InputStream body = request(scheme, serverIp, port, key, maps)) {
                    DataInputStream in = new DataInputStream(body);
                    for (String mapId : maps) {
                        if (!ShuffleWire.frame(in).mapId().equals(mapId)) {
                            throw new IOException("fetching " + mapIds + ": map outputs out of order");
                        }
                    }
                }
            }
        }

        /** Sends a signed request for the partitions of reduce 0 of {@code mapIds}; the body of its 200 with a reply hash that checks. */
        private InputStream request(String scheme, String serverIp, int port, SecretKey key, String... mapIds)
                throws IOException {
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, mapIds);
            HttpURLConnection c = connections.open(new URL(scheme, serverIp, port, uri), key);
            String hash = ShuffleWire.sign(c, uri, port, key);
            if (c.getResponseCode() != 200) {
                throw new IOException("fetching " + String.join(",", mapIds) + ": " + c.getResponseCode() + " "
                        + c.getResponseMessage());
            }
            SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, key);
            return c.getInputStream();
        }

        @Override
        public void close() {
            if (transports != null) {
                transports.close();
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

    /** Opens a fetch's connection to sign with {@code jobToken}, which ours also binds TIPC requests with. */
    @FunctionalInterface
    private interface Connections {
        HttpURLConnection open(URL url, SecretKey jobToken) throws IOException;
    }
}
