package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Start-up check that nobody else already publishes our shuffle names. The
 * topology service reports every existing binding of a subscribed range at once,
 * then a timeout event: a name with a binding before its timeout is taken (another
 * NodeManager whose address and port hash to the same instance, or a stale
 * configuration), and must not be published a second time.
 */
final class ServiceNameCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceNameCheck.class);

    private ServiceNameCheck() {
    }

    /** The names in {@code names} that no socket in the cluster has bound yet. */
    static List<ShuffleServiceName> unclaimed(int serviceType, List<ShuffleServiceName> names, Duration wait)
            throws IOException {
        Map<Integer, ShuffleServiceName> byInstance = new HashMap<>();
        List<ShuffleServiceName> free = new ArrayList<>();
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            for (ShuffleServiceName name : names) {
                if (byInstance.putIfAbsent(name.instance(), name) != null) {
                    LOG.error("TIPC shuffle names {} and {} hash to the same instance; not publishing {}",
                            byInstance.get(name.instance()), name, name);
                    continue;
                }
                topology.subscribe(TipcServiceRange.of(serviceType, name.instance(), name.instance()),
                        TipcTopologyChannel.Mode.EVERY_BINDING, wait);
            }
            Map<Integer, ShuffleServiceName> pending = new HashMap<>(byInstance);
            while (!pending.isEmpty()) {
                TipcTopologyEvent event = topology.receive(wait.multipliedBy(4));
                if (event == null) {
                    throw new IOException("topology service sent no timeout event for " + pending.values());
                }
                int instance = event.subscription().range().lower();
                ShuffleServiceName name = pending.remove(instance);
                if (name == null) {
                    continue; // a later event of a name already decided
                }
                if (event.kind() == TipcTopologyEvent.Kind.TIMEOUT) {
                    free.add(name);
                } else {
                    LOG.error("TIPC shuffle name {} for {} is already published by node {}: not publishing it;"
                                    + " reducers reach {} over HTTP/TCP", name.tipcAddress(serviceType), name,
                            nodeName(event.node()), name);
                }
            }
        }
        return free;
    }

    /** The node's identity for a log line; its hex address when the identity cannot be read. */
    static String nodeName(int node) {
        try {
            return Tipc.nodeIdentity(node);
        } catch (IOException | RuntimeException | LinkageError e) {
            return String.format("%08x (identity unreadable: %s)", node, e.getMessage());
        }
    }
}
