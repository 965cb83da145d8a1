package io.hadooptipc.hdfs.report;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSUtil;
import org.apache.hadoop.hdfs.net.DFSNetworkTopology;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfoWithStorage;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.net.NodeBase;

import io.hadooptipc.hdfs.read.ReadCostNetworkTopology;

/**
 * The order in which the NameNode hands a block's replicas to one client, worked out
 * outside the NameNode twice: with the stock topology and with {@link ReadCostNetworkTopology}
 * under the given configuration. Like the NameNode, it moves decommissioning, decommissioned
 * and entering-maintenance replicas last; it cannot see staleness or slow-node reports.
 */
public final class ReadOrderPreview {
    private final DFSNetworkTopology stock;
    private final DFSNetworkTopology ours;
    private final Node reader;
    private final String readerDescription;

    /**
     * @param client a DataNode's transfer address (host:port), or a host name or address
     * @param clientRack the client's rack when it is no DataNode, as the NameNode would resolve it
     */
    public ReadOrderPreview(Configuration conf, DatanodeInfo[] datanodes, String client, String clientRack) {
        this.stock = topology(conf, DFSNetworkTopology.class);
        this.ours = topology(conf, ReadCostNetworkTopology.class);
        List<DatanodeInfo> matches = Arrays.stream(datanodes)
                .filter(dn -> client.equals(dn.getXferAddr()) || client.equals(dn.getIpAddr())
                        || client.equals(dn.getHostName()))
                .collect(Collectors.toList());
        if (matches.isEmpty()) {
            reader = new NodeBase(client, clientRack);
            readerDescription = client + " (no DataNode) in " + clientRack;
        } else {
            DatanodeInfo dn = matches.get(0);
            // named like the replicas, so that the NameNode's distance rule finds it local to itself
            reader = new NodeBase(dn.getXferAddr(), dn.getNetworkLocation());
            readerDescription = "DataNode " + dn.getXferAddr() + " in " + dn.getNetworkLocation()
                    + (matches.size() == 1 ? "" : "; " + matches.size() + " DataNodes share " + client
                            + ", the NameNode picks one at random per block: name one as host:port");
        }
    }

    private static DFSNetworkTopology topology(Configuration conf, Class<? extends DFSNetworkTopology> impl) {
        Configuration c = new Configuration(conf);
        c.setClass(DFSConfigKeys.DFS_NET_TOPOLOGY_IMPL_KEY, impl, NetworkTopology.class);
        return DFSNetworkTopology.getInstance(c);
    }

    public String readerDescription() {
        return readerDescription;
    }

    public DatanodeInfoWithStorage[] stockOrder(LocatedBlock block) {
        return sorted(stock, block);
    }

    public DatanodeInfoWithStorage[] ourOrder(LocatedBlock block) {
        return sorted(ours, block);
    }

    private DatanodeInfoWithStorage[] sorted(DFSNetworkTopology topology, LocatedBlock block) {
        DatanodeInfoWithStorage[] replicas = block.getLocations().clone();
        Arrays.sort(replicas, new DFSUtil.ServiceComparator());
        int activeLen = (int) Arrays.stream(replicas).filter(r -> !r.isDecommissioned()
                && !r.isDecommissionInProgress() && !r.isEnteringMaintenance()).count();
        topology.sortByDistanceUsingNetworkLocation(reader, replicas, activeLen, null);
        return replicas;
    }
}
