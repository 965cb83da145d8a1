package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcTopologyChannel;

import javax.crypto.SecretKey;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A reducer fetching one map output from one map host again and again, with the routes of a
 * reduce task following TIPC's topology service and falling back to HTTP/TCP as configured by
 * default: each fetch stamped with when it started and ended and whether TIPC carried it, and
 * each topology report with when it came. What the route-recovery benchmark watches while the
 * host's handler restarts.
 */
public final class RouteRecovery implements Closeable {
    /** How long the loop waits after a failed fetch, as a fetcher waits before retrying a host. */
    public static final long RETRY_MILLIS = 20;

    /** One fetch; {@code failure} is null if it read the whole map output. Times from {@link System#nanoTime()}. */
    public record Fetch(long startNanos, long endNanos, boolean viaTipc, String failure) {
    }

    /** A topology report about the host's name: published or withdrawn, and when it came. */
    public record Report(boolean published, long nanos) {
    }

    private final List<Fetch> fetches = new ArrayList<>();
    private final List<Report> reports = new ArrayList<>();
    private final TransportRoutes routes;
    private final StreamPool streams;
    private final Thread loop;
    private volatile boolean running = true;

    private RouteRecovery(String serverIp, int port, SecretKey key, String mapId) throws IOException {
        CountingReporter reporter = new CountingReporter();
        TransferCounters counters = new TransferCounters(reporter);
        TipcTopologyChannel topology = TipcTopologyChannel.open(); // as TransportRoutes.start shares one
        routes = new TransportRoutes(Transport.AUTO, Tipc.availability(topology), counters);
        routes.follow(TipcNameWatch.start(TipcShuffleConfig.DEFAULT_SERVICE_TYPE, new Stamped(routes), topology));
        streams = FetchCost.streams(counters, true);
        routes.onLeavingTipc(streams);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, mapId);
        loop = new Thread(() -> {
            while (running) {
                long start = System.nanoTime();
                boolean viaTipc = false;
                String failure = null;
                try {
                    TipcShuffleConnection c = FetchCost.connection(serverIp, port, uri, key, routes, streams, counters);
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
            return fetches.stream().filter(f -> f.startNanos() >= nanos).toList();
        }
    }

    /** The topology reports that came at or after {@code nanos}, in order. */
    public List<Report> reportsSince(long nanos) {
        synchronized (reports) {
            return reports.stream().filter(r -> r.nanos() >= nanos).toList();
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
        streams.close();
        routes.close();
    }

    private static void sleep() {
        try {
            Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stamps each report about the host's name on arrival, then hands it to the routes. */
    private final class Stamped implements NameWatch.Listener {
        private final NameWatch.Listener routes;

        Stamped(NameWatch.Listener routes) {
            this.routes = routes;
        }

        @Override
        public void published(ShuffleServiceName name) {
            stamp(true);
            routes.published(name);
        }

        @Override
        public void withdrawn(ShuffleServiceName name) {
            stamp(false);
            routes.withdrawn(name);
        }

        @Override
        public void nodeLost(int node) {
            routes.nodeLost(node);
        }

        private void stamp(boolean published) {
            synchronized (reports) {
                reports.add(new Report(published, System.nanoTime()));
            }
        }
    }
}
