package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcAvailability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URL;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Decides, per map host, whether a reduce task's fetchers try TIPC. A host whose TIPC
 * connection failed once is fetched from over HTTP/TCP for the rest of the task, and
 * the reason is logged once per host, so a half-working TIPC never costs more than
 * one fallback per host.
 */
final class TransportRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(TransportRoutes.class);

    /** A TIPC name to try, or why not to. */
    record Route(ShuffleServiceName name, Fallback fallback) {
    }

    private final Transport mode;
    private final TipcAvailability availability;
    private final Map<String, Fallback> tcpHosts = new ConcurrentHashMap<>();
    private final AtomicBoolean unavailableLogged = new AtomicBoolean();

    TransportRoutes(Transport mode, TipcAvailability availability) {
        this.mode = mode;
        this.availability = availability;
    }

    static TransportRoutes detect(Transport mode) {
        return new TransportRoutes(mode, mode == Transport.TCP ? null : Tipc.availability());
    }

    Transport mode() {
        return mode;
    }

    Route route(URL url) throws IOException {
        if (mode == Transport.TCP) {
            return new Route(null, Fallback.CONFIGURED);
        }
        if (!availability.isAvailable()) {
            if (mode == Transport.TIPC) {
                throw new IOException("mapreduce.shuffle.tipc.transport is tipc, but " + availability.reason());
            }
            if (unavailableLogged.compareAndSet(false, true)) {
                LOG.warn("Shuffle goes over HTTP/TCP: {}", availability.reason());
            }
            return new Route(null, Fallback.TIPC_UNAVAILABLE);
        }
        Fallback earlier = tcpHosts.get(hostPort(url));
        if (earlier != null) {
            return new Route(null, earlier);
        }
        return new Route(ShuffleServiceName.of(InetAddress.getByName(url.getHost()), url.getPort()), null);
    }

    /** Records that TIPC failed for the URL's host; the first time, says why in the log. */
    void fellBack(URL url, Fallback why, Exception cause) {
        String host = hostPort(url);
        if (tcpHosts.putIfAbsent(host, why) == null) {
            LOG.warn("Shuffle from {} goes over HTTP/TCP for the rest of this task: {} ({})", host, why.reason,
                    cause == null ? "" : cause.getMessage());
        }
    }

    private static String hostPort(URL url) {
        return url.getHost() + ":" + url.getPort();
    }
}
