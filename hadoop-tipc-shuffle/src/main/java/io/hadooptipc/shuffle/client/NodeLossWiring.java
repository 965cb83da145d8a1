package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/** Builds a reduce task's {@link NodeLoss} from the job's keys and ties it to the routes and the streams. */
final class NodeLossWiring {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLossWiring.class);

    private NodeLossWiring() {
    }

    /** The timer that runs the task's node-loss decisions, to be closed with the task's transports; null if off. */
    static NodeLossTimer start(Configuration job, TransportRoutes routes, TrackedStreams streams, NodeLoss.Hosts hosts,
                               TransferCounters counters) {
        int self;
        try {
            self = Tipc.ownNodeAddress();
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.debug("TIPC node loss is not acted on: this node's TIPC address is unknown ({})", e.toString());
            return null;
        }
        NodeLossTimer timer = new NodeLossTimer();
        NodeLoss loss = new NodeLoss(hosts, new TcpProbe(), timer, timer, counters,
                job.getLong(TipcShuffleConfig.NODE_LOSS_HOLD_DOWN_MS, TipcShuffleConfig.DEFAULT_NODE_LOSS_HOLD_DOWN_MS),
                job.getInt(TipcShuffleConfig.NODE_LOSS_PROBE_TIMEOUT_MS, TipcShuffleConfig.DEFAULT_NODE_LOSS_PROBE_TIMEOUT_MS),
                FetchFailureReports.intervalMillis(job), self);
        loss.closeStreamsWith(streams);
        routes.actOnNodeLoss(loss);
        try {
            for (int node : Tipc.reachableNodes()) { // linked before the loss was told of the topology's reports
                loss.nodeUp(node);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("TIPC's linked nodes unknown: a loss counts against those reported from now on ({})", e.toString());
        }
        return timer;
    }
}
