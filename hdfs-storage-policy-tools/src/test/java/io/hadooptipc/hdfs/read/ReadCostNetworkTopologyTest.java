package io.hadooptipc.hdfs.read;

import static org.apache.hadoop.fs.StorageType.DISK;
import static org.apache.hadoop.fs.StorageType.SSD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.net.DFSNetworkTopology;
import org.apache.hadoop.hdfs.protocol.DatanodeInfoWithStorage;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.net.NodeBase;
import org.junit.jupiter.api.Test;

/** The adapter on hand-built nodes in two racks: /r1 holds a and b, /r2 holds c and d. */
class ReadCostNetworkTopologyTest {
    private final DatanodeDescriptor a = DFSTestUtil.getDatanodeDescriptor("10.0.1.1", "/r1");
    private final DatanodeDescriptor b = DFSTestUtil.getDatanodeDescriptor("10.0.1.2", "/r1");
    private final DatanodeDescriptor c = DFSTestUtil.getDatanodeDescriptor("10.0.2.1", "/r2");
    private final DatanodeDescriptor d = DFSTestUtil.getDatanodeDescriptor("10.0.2.2", "/r2");

    private static DFSNetworkTopology topology(boolean enabled, DatanodeDescriptor... nodes) {
        Configuration conf = new Configuration(false);
        conf.setClass(DFSConfigKeys.DFS_NET_TOPOLOGY_IMPL_KEY, ReadCostNetworkTopology.class,
                DFSNetworkTopology.class);
        conf.setBoolean(ReadOrderSettings.ENABLED, enabled);
        DFSNetworkTopology topology = DFSNetworkTopology.getInstance(conf);
        for (DatanodeDescriptor n : nodes) {
            topology.add(n);
        }
        return topology;
    }

    private static DatanodeInfoWithStorage replica(DatanodeDescriptor node, StorageType type) {
        return new DatanodeInfoWithStorage(node, "storage-" + node.getIpAddr(), type);
    }

    @Test
    void isWhatTheNameNodeInstantiates() {
        assertInstanceOf(ReadCostNetworkTopology.class, topology(true));
    }

    @Test
    void remoteSsdComesBeforeTheReadersOwnDisk() {
        DFSNetworkTopology topology = topology(true, a, b, c);
        DatanodeInfoWithStorage[] replicas = {replica(a, DISK), replica(b, DISK), replica(c, SSD)};
        topology.sortByDistance(a, replicas, replicas.length, null);
        assertArrayEquals(new Object[] {c, a, b}, replicas);
    }

    @Test
    void switchedOffItSortsLikeStock() {
        DFSNetworkTopology topology = topology(false, a, b, c);
        DatanodeInfoWithStorage[] replicas = {replica(c, SSD), replica(b, DISK), replica(a, DISK)};
        topology.sortByDistance(a, replicas, replicas.length, null);
        assertArrayEquals(new Object[] {a, b, c}, replicas);
    }

    @Test
    void inactiveReplicasBehindActiveLenStayLast() {
        DFSNetworkTopology topology = topology(true, a, b, c);
        // c (the SSD) is stale or decommissioning: the NameNode moved it behind activeLen
        DatanodeInfoWithStorage[] replicas = {replica(b, DISK), replica(a, DISK), replica(c, SSD)};
        topology.sortByDistance(a, replicas, 2, null);
        assertArrayEquals(new Object[] {a, b, c}, replicas);
    }

    @Test
    void tiesGoToTheNameNodesSecondarySort() {
        DFSNetworkTopology topology = topology(true, a, b, c, d);
        DatanodeInfoWithStorage[] replicas = {replica(a, DISK), replica(d, SSD), replica(c, SSD)};
        List<List<DatanodeInfoWithStorage>> tieGroups = new ArrayList<>();
        // stands in for considerLoad: a deterministic order the shuffle must not undo
        Consumer<List<DatanodeInfoWithStorage>> byAddress = group -> {
            tieGroups.add(List.copyOf(group));
            group.sort(Comparator.comparing(DatanodeInfoWithStorage::getIpAddr).reversed());
        };
        topology.sortByDistance(a, replicas, replicas.length, byAddress);
        assertArrayEquals(new Object[] {d, c, a}, replicas);
        assertEquals(1, tieGroups.size());
        assertEquals(2, tieGroups.get(0).size());
    }

    @Test
    void readerOutsideTheClusterIsPlacedByNetworkLocation() {
        DFSNetworkTopology topology = topology(true, a, b, c);
        DatanodeInfoWithStorage[] replicas = {replica(a, DISK), replica(b, DISK), replica(c, SSD)};
        topology.sortByDistanceUsingNetworkLocation(new NodeBase("/r1/client"), replicas, replicas.length, null);
        assertEquals(c, replicas[0]);
    }

    @Test
    void singleStorageTypeKeepsTheStockDistanceOrder() {
        DFSNetworkTopology topology = topology(true, a, b, c);
        DatanodeInfoWithStorage[] replicas = {replica(c, DISK), replica(b, DISK), replica(a, DISK)};
        topology.sortByDistance(a, replicas, replicas.length, null);
        assertArrayEquals(new Object[] {a, b, c}, replicas);
    }
}
