package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterInt;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeInt;

/**
 * What the NodeManager served over TIPC, as a metrics2 source named
 * {@value #NAME}. Its figures carry the names of the stock {@code ShuffleMetrics}
 * source, which keeps counting the HTTP/TCP transport: the two sources side by side
 * are the per-transport view.
 */
public final class TipcShuffleMetrics implements MetricsSource {
    public static final String NAME = "TipcShuffleMetrics";
    public static final String CONNECTIONS_OVER_CAP = "ShuffleConnectionsOverCap";
    public static final String CONNECTIONS_OVER_NODE_CAP = "ShuffleConnectionsOverNodeCap";
    public static final String NOT_SERVED_UNENCRYPTED = "NotServedLinksUnencrypted";
    public static final String NAME_OTHER_HOLDERS = "ShuffleNameOtherHolders";
    public static final String NAME_OTHER_HOLDERS_SEEN = "ShuffleNameOtherHoldersSeen";

    private final MetricsRegistry registry = new MetricsRegistry(NAME)
            .setContext("mapred").tag("Transport", "Shuffle transport", "tipc");

    final MutableCounterLong outputBytes =
            registry.newCounter("ShuffleOutputBytes", "Map output bytes sent over TIPC", 0L);
    final MutableCounterInt outputsOk =
            registry.newCounter("ShuffleOutputsOK", "Map outputs sent in full over TIPC", 0);
    final MutableCounterInt outputsFailed =
            registry.newCounter("ShuffleOutputsFailed", "Map outputs that failed over TIPC", 0);
    final MutableCounterInt outputsLeftForTcp = registry.newCounter("ShuffleOutputsLeftForTcp",
            "Map outputs of TIPC responses not sent: the reducer takes them over HTTP/TCP from the header of one above"
                    + " its " + TipcShuffleConfig.TCP_ABOVE_BYTES, 0);
    final MutableCounterInt connections =
            registry.newCounter("ShuffleConnections", "TIPC shuffle connections accepted", 0);
    final MutableCounterInt requestsRejected =
            registry.newCounter("ShuffleRequestsRejected", "TIPC requests answered with an error status", 0);
    final MutableCounterInt connectionsOverCap = registry.newCounter(CONNECTIONS_OVER_CAP,
            "TIPC connections closed as they were accepted: " + TipcShuffleConfig.MAX_OPEN_CONNECTIONS + " were open", 0);
    final MutableCounterInt connectionsOverNodeCap = registry.newCounter(CONNECTIONS_OVER_NODE_CAP,
            "TIPC connections closed as they were accepted: their peer node had "
                    + TipcShuffleConfig.MAX_OPEN_CONNECTIONS_PER_NODE + " open", 0);
    final MutableGaugeInt notServedUnencrypted = registry.newGauge(NOT_SERVED_UNENCRYPTED,
            "1: encrypted shuffle is required, the TIPC links are declared encrypted, and the kernel has no TIPC"
                    + " encryption, so nothing is served over TIPC", 0);
    final MutableGaugeInt nameOtherHolders = registry.newGauge(NAME_OTHER_HOLDERS,
            "Sockets other than this NodeManager's listener that bind its TIPC shuffle names", 0);
    final MutableCounterLong nameOtherHoldersSeen = registry.newCounter(NAME_OTHER_HOLDERS_SEEN,
            "Bindings of this NodeManager's TIPC shuffle names by other sockets seen since it started, each"
                    + " socket once per name, whether or not its WARN line was written", 0L);
    final MutableGaugeInt openConnections =
            registry.newGauge("ShuffleOpenConnections", "Open TIPC shuffle connections", 0);

    @Override
    public void getMetrics(MetricsCollector collector, boolean all) {
        registry.snapshot(collector.addRecord(registry.info()), all);
    }

    public long outputBytes() {
        return outputBytes.value();
    }

    public int outputsOk() {
        return outputsOk.value();
    }

    public int outputsFailed() {
        return outputsFailed.value();
    }

    public int outputsLeftForTcp() {
        return outputsLeftForTcp.value();
    }

    public int connections() {
        return connections.value();
    }

    public int openConnections() {
        return openConnections.value();
    }

    public int connectionsOverCap() {
        return connectionsOverCap.value();
    }

    public int connectionsOverNodeCap() {
        return connectionsOverNodeCap.value();
    }

    /** 1 while TIPC is not served because the kernel cannot encrypt the links declared encrypted. */
    public int notServedUnencrypted() {
        return notServedUnencrypted.value();
    }

    /** Sockets other than the listener that bind this NodeManager's shuffle names, right now. */
    public int nameOtherHolders() {
        return nameOtherHolders.value();
    }

    /** Other sockets seen binding this NodeManager's shuffle names since it started, each once per name. */
    public long nameOtherHoldersSeen() {
        return nameOtherHoldersSeen.value();
    }

    public int requestsRejected() {
        return requestsRejected.value();
    }
}
