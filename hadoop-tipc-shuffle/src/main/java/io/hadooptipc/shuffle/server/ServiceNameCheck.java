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
 * NodeManager whose address and port hash to the same instance, a stale
 * configuration, or a process that took it), and is not published a second time;
 * {@link ServiceNameWatch} publishes it once it is free.
 */
final class ServiceNameCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceNameCheck.class);

    private ServiceNameCheck() {
    }

    /**
     * {@code names} less those whose instance an earlier one has: two of this host's addresses whose
     * names hash alike cannot both be published.
     */
    static List<ShuffleServiceName> oneByInstance(List<ShuffleServiceName> names) {
        Map<Integer, ShuffleServiceName> byInstance = new HashMap<>();
        List<ShuffleServiceName> distinct = new ArrayList<>();
        for (ShuffleServiceName name : names) {
            ShuffleServiceName first = byInstance.putIfAbsent(name.instance(), name);
            if (first == null) {
                distinct.add(name);
            } else {
                LOG.error("TIPC shuffle names {} and {} hash to the same instance; not publishing {}", first, name,
                        name);
            }
        }
        return distinct;
    }

    /** The names in {@code names} (one by instance) that no socket in the cluster has bound yet. */
    static List<ShuffleServiceName> unclaimed(int serviceType, List<ShuffleServiceName> names, Duration wait)
            throws IOException {
        List<ShuffleServiceName> free = new ArrayList<>();
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            Map<Integer, ShuffleServiceName> pending = new HashMap<>();
            for (ShuffleServiceName name : names) {
                pending.put(name.instance(), name);
                topology.subscribe(TipcServiceRange.of(serviceType, name.instance(), name.instance()),
                        TipcTopologyChannel.Mode.EVERY_BINDING, wait);
            }
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
                    LOG.error("TIPC shuffle name {} for {} is already published by node {}: not publishing it"
                                    + " until it is free; reducers reach {} over HTTP/TCP meanwhile",
                            name.tipcAddress(serviceType), name, nodeName(event.node()), name);
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
