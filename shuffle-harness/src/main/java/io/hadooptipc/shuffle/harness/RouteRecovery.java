package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.TaskTransports;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;
import org.apache.hadoop.mapred.JobConf;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.crypto.SecretKey;

/**
 * A reducer fetching one map output from one map host again and again, with the routes of a
 * reduce task following TIPC's topology service and falling back to HTTP/TCP as configured by
 * default: each fetch stamped with when it started and ended and whether TIPC carried it, and
 * each topology report about the host's name with when it came (from a subscription of its own,
 * which the kernel reports to when it reports to the routes'). What the route-recovery benchmark
 * watches while the host's handler restarts.
 */
public final class RouteRecovery implements Closeable {
    /** How long the loop waits after a failed fetch, as a fetcher waits before retrying a host. */
    public static final long RETRY_MILLIS = 20;

    /** One fetch; {@code failure} is null if it read the whole map output. Times from {@link System#nanoTime()}. */
    public static final class Fetch {
        private final long startNanos;
        private final long endNanos;
        private final boolean viaTipc;
        private final String failure;

        public Fetch(long startNanos, long endNanos, boolean viaTipc, String failure) {
            this.startNanos = startNanos;
            this.endNanos = endNanos;
            this.viaTipc = viaTipc;
            this.failure = failure;
        }

        public long startNanos() {
            return startNanos;
        }

        public long endNanos() {
            return endNanos;
        }

        public boolean viaTipc() {
            return viaTipc;
        }

        public String failure() {
            return failure;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Fetch)) {
                return false;
            }
            Fetch that = (Fetch) o;
            return startNanos == that.startNanos && endNanos == that.endNanos && viaTipc == that.viaTipc
                    && Objects.equals(failure, that.failure);
        }

        @Override
        public int hashCode() {
            return Objects.hash(startNanos, endNanos, viaTipc, failure);
        }

        @Override
        public String toString() {
            return "Fetch[startNanos=" + startNanos + ", endNanos=" + endNanos + ", viaTipc=" + viaTipc + ", failure="
                    + failure + "]";
        }
    }

    /** A topology report about the host's name: published or withdrawn, and when it came. */
    public static final class Report {
        private final boolean published;
        private final long nanos;

        public Report(boolean published, long nanos) {
            this.published = published;
            this.nanos = nanos;
        }

        public boolean published() {
            return published;
        }

        public long nanos() {
            return nanos;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Report)) {
                return false;
            }
            Report that = (Report) o;
            return published == that.published && nanos == that.nanos;
        }

        @Override
        public int hashCode() {
            return Objects.hash(published, nanos);
        }

        @Override
        public String toString() {
            return "Report[published=" + published + ", nanos=" + nanos + "]";
        }
    }

    private final List<Fetch> fetches = new ArrayList<>();
    private final List<Report> reports = new ArrayList<>();
    private final TaskTransports transports;
    private final TipcTopologyChannel topology;
    private final Thread loop;
    private volatile boolean running = true;

    private RouteRecovery(String serverIp, int port, SecretKey key, String mapId) throws IOException {
        JobConf job = new JobConf(false); // our defaults: TIPC where published, HTTP/TCP otherwise, one stream kept
        transports = TaskTransports.start(job, new CountingReporter());
        topology = TipcTopologyChannel.open();
        topology.subscribe(TipcServiceRange.of(ShuffleServiceName.of(InetAddress.getByName(serverIp), port)
                .tipcAddress(TipcShuffleConfig.serviceType(job))), TipcTopologyChannel.Mode.FIRST_AND_LAST);
        Thread stamps = new Thread(this::stampReports, "route-recovery reports");
        stamps.setDaemon(true);
        stamps.start();
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, mapId);
        URL url = new URL("http", serverIp, port, uri);
        loop = new Thread(() -> {
            while (running) {
                long start = System.nanoTime();
                boolean viaTipc = false;
                String failure = null;
                try {
                    HttpURLConnection c = transports.open(url, u -> (HttpURLConnection) u.openConnection(), key);
                    ShuffleWire.sign(c, uri, port, key);
                    c.setConnectTimeout(10_000);
                    if (c.getResponseCode() != 200) {
                        throw new IOException(c.getResponseCode() + " " + c.getResponseMessage());
                    }
                    viaTipc = c.getHeaderField(TipcShuffleConfig.SERVER_HEADER) != null;
                    try (InputStream in = c.getInputStream()) {
                        if (ShuffleWire.frames(in).size() != 1) {
                            throw new IOException("not one map output");
                        }
                    }
                } catch (Exception e) {
                    failure = e.toString();
                }
                synchronized (fetches) {
                    fetches.add(new Fetch(start, System.nanoTime(), viaTipc, failure));
                }
                if (failure != null) {
                    sleep();
                }
            }
        }, "route-recovery fetches");
        loop.setDaemon(true);
        loop.start();
    }

    /** Starts fetching {@code mapId}'s partition for reduce 0 from the handler at {@code serverIp:port}. */
    public static RouteRecovery start(String serverIp, int port, SecretKey key, String mapId) throws IOException {
        return new RouteRecovery(serverIp, port, key, mapId);
    }

    /** The fetches that started at or after {@code nanos}, in order. */
    public List<Fetch> fetchesSince(long nanos) {
        synchronized (fetches) {
            return fetches.stream().filter(f -> f.startNanos() >= nanos).collect(Collectors.toList());
        }
    }

    /** The topology reports that came at or after {@code nanos}, in order. */
    public List<Report> reportsSince(long nanos) {
        synchronized (reports) {
            return reports.stream().filter(r -> r.nanos() >= nanos).collect(Collectors.toList());
        }
    }

    @Override
    public void close() throws IOException {
        running = false;
        try {
            loop.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        topology.close(); // ends stampReports
        transports.close();
    }

    private static void sleep() {
        try {
            Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stamps each report about the host's name on arrival, until the topology connection closes. */
    private void stampReports() {
        try {
            while (true) {
                TipcTopologyEvent e = topology.receive();
                if (e.kind() != TipcTopologyEvent.Kind.TIMEOUT) {
                    synchronized (reports) {
                        reports.add(new Report(e.kind() == TipcTopologyEvent.Kind.PUBLISHED, System.nanoTime()));
                    }
                }
            }
        } catch (IOException closed) {
            // close() ends the reports
        }
    }
}
