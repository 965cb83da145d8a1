package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.tipc.Testbed;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

import javax.crypto.SecretKey;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.List;

/**
 * A reducer's fetches from one TIPC shuffle server in the testbed, for the kernel tests
 * and the fetch-reuse benchmark (this class travels in the module's test-jar): our
 * handler started in a node, connections signed as the stock fetcher signs them, and the
 * cost of fetching map outputs one request each, as a fetcher does when maps complete
 * one by one, with kept-alive streams or without.
 */
public final class FetchCost {
    /** One series of fetches: wall time and the fetching thread's CPU in total, and what the streams did. */
    public record Measured(int fetches, long wallNanos, long cpuNanos, long streamsOpened, long streamsReused) {
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
        CountingReporter reporter = new CountingReporter();
        TransferCounters counters = new TransferCounters(reporter);
        TransportRoutes routes = new TransportRoutes(Transport.TIPC, Tipc.availability(), counters);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        try (StreamPool streams = streams(counters, reuse)) {
            for (String mapId : mapIds) {
                TipcShuffleConnection c = connection(serverIp, port, ShuffleWire.uri(ShuffleWire.JOB, 0, mapId), key,
                        routes, streams, counters);
                if (c.getResponseCode() != 200) {
                    throw new IOException("fetching " + mapId + ": " + c.getResponseCode() + " " + c.getResponseMessage());
                }
                try (InputStream in = c.getInputStream()) {
                    if (ShuffleWire.frames(in).size() != 1) {
                        throw new IOException("fetching " + mapId + ": not one map output");
                    }
                }
            }
        }
        return new Measured(mapIds.size(), System.nanoTime() - wall, threads.getCurrentThreadCpuTime() - cpu,
                reporter.get(TipcShuffleCounter.STREAMS_OPENED), reporter.get(TipcShuffleCounter.STREAMS_REUSED));
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
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, ShuffleWire.urlHash(uri, port, key));
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        c.setReadTimeout(60_000);
        return c;
    }
}
