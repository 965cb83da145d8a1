package io.hadooptipc.hdfs.read;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.net.DFSNetworkTopology;
import org.apache.hadoop.hdfs.protocol.DatanodeInfoWithStorage;
import org.apache.hadoop.net.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NameNode's topology ({@code dfs.net.topology.impl}) with a read order from
 * {@link ReadCostModel}: for a block on mixed storage types, the replica a reader can
 * read fastest comes first, even when it is further away.
 *
 * <p>Only the read sort is replaced. Write placement ({@code chooseRandom*}) is the
 * inherited stock code, and the NameNode has already moved stale, slow, decommissioning
 * and maintenance replicas behind {@code activeLen} before calling here: only the active
 * prefix is reordered. Ties are shuffled and handed to the NameNode's secondary sort,
 * as stock does, so {@code dfs.namenode.read.considerLoad} keeps working among them.
 */
public class ReadCostNetworkTopology extends DFSNetworkTopology implements Configurable {
    private static final Logger LOG = LoggerFactory.getLogger(ReadCostNetworkTopology.class);

    private Configuration conf;
    /** Null when the read order is switched off: every sort is then the stock one. */
    private ReadCostModel model;

    @Override
    public void setConf(Configuration conf) {
        this.conf = conf;
        this.model = ReadOrderSettings.costModel(conf).orElse(null);
        LOG.info("Read order by expected throughput is {}", model == null ? "off: stock order" : "on");
    }

    @Override
    public Configuration getConf() {
        return conf;
    }

    /** A reader that is a DataNode: distance from the topology tree. */
    @Override
    public <T extends Node> void sortByDistance(Node reader, T[] nodes, int activeLen,
            Consumer<List<T>> secondarySort) {
        if (!sortByCost(reader, nodes, activeLen, secondarySort, false)) {
            super.sortByDistance(reader, nodes, activeLen, secondarySort);
        }
    }

    /** Any other reader: distance from its resolved network location. */
    @Override
    public <T extends Node> void sortByDistanceUsingNetworkLocation(Node reader, T[] nodes,
            int activeLen, Consumer<List<T>> secondarySort) {
        if (!sortByCost(reader, nodes, activeLen, secondarySort, true)) {
            super.sortByDistanceUsingNetworkLocation(reader, nodes, activeLen, secondarySort);
        }
    }

    /** @return false, touching nothing, when the stock order applies to these replicas */
    private <T extends Node> boolean sortByCost(Node reader, T[] nodes, int activeLen,
            Consumer<List<T>> secondarySort, boolean byNetworkLocation) {
        if (model == null || activeLen < 2) {
            return false;
        }
        StorageType[] types = new StorageType[activeLen];
        for (int i = 0; i < activeLen; i++) {
            if (!(nodes[i] instanceof DatanodeInfoWithStorage)) {
                return false;
            }
            DatanodeInfoWithStorage replica = (DatanodeInfoWithStorage) nodes[i];
            types[i] = replica.getStorageType();
        }
        if (!model.ranks(types, activeLen)) {
            return false;
        }
        List<List<T>> groups = model.rank(Arrays.asList(nodes).subList(0, activeLen),
                n -> ((DatanodeInfoWithStorage) n).getStorageType(),
                n -> byNetworkLocation ? getWeightUsingNetworkLocation(reader, n) : getWeight(reader, n));
        int i = 0;
        for (List<T> tied : groups) {
            if (tied.size() > 1) {
                Collections.shuffle(tied, ThreadLocalRandom.current());
                if (secondarySort != null) {
                    secondarySort.accept(tied);
                }
            }
            for (T n : tied) {
                nodes[i++] = n;
            }
        }
        return true;
    }
}
