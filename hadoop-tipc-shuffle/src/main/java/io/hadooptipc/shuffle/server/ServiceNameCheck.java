package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.Tipc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Start-up check of this NodeManager's own shuffle names: two of its addresses whose names hash to
 * one instance cannot both be published. Whoever else binds a name does not keep it from being
 * published: {@link ServiceNameWatch} counts and reports such holders.
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

    /** The node's identity for a log line; its hex address when the identity cannot be read. */
    static String nodeName(int node) {
        try {
            return Tipc.nodeIdentity(node);
        } catch (IOException | RuntimeException | LinkageError e) {
            return String.format("%08x (identity unreadable: %s)", node, e.getMessage());
        }
    }
}
