package io.hadooptipc.shuffle;

import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;

import java.io.IOException;
import java.time.Duration;

/** The kernel tests' wait for a TIPC name's binding by one node, as this node's topology service reports it. */
public final class NameBindings {
    private NameBindings() {
    }

    /** Whether a socket on {@code node} binds {@code service} within {@code within}. */
    public static boolean boundBy(TipcServiceAddress service, int node, Duration within) throws IOException {
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            topology.subscribe(TipcServiceRange.of(service), TipcTopologyChannel.Mode.EVERY_BINDING, within);
            for (TipcTopologyEvent e = topology.receive(within.plusSeconds(5)); e != null
                    && e.kind() != TipcTopologyEvent.Kind.TIMEOUT; e = topology.receive(within.plusSeconds(5))) {
                if (e.kind() == TipcTopologyEvent.Kind.PUBLISHED && e.node() == node) {
                    return true;
                }
            }
        }
        return false;
    }
}
