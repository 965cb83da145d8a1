package io.hadooptipc.hdfs.read;

import static org.apache.hadoop.fs.StorageType.DISK;
import static org.apache.hadoop.fs.StorageType.SSD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.net.DFSNetworkTopology;
import org.apache.hadoop.hdfs.protocol.DatanodeInfoWithStorage;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.net.NetworkTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.hadooptipc.hdfs.SsdDiskCluster;

/**
 * A NameNode running {@link ReadCostNetworkTopology}, three DataNodes with one SSD and
 * one DISK volume each, and a ONE_SSD file: one SSD and two DISK replicas per block.
 */
class ReadOrderMiniClusterTest {
    private static final Path FILE = new Path("/one-ssd/file");
    private static final int BLOCK_SIZE = SsdDiskCluster.BLOCK_SIZE;
    private static final int BLOCKS = 3;

    private static final byte[] CONTENT = new byte[BLOCKS * BLOCK_SIZE];

    private static MiniDFSCluster cluster;

    @BeforeAll
    static void startClusterAndWriteFile() throws Exception {
        Configuration conf = new Configuration();
        conf.setClass(DFSConfigKeys.DFS_NET_TOPOLOGY_IMPL_KEY, ReadCostNetworkTopology.class,
                DFSNetworkTopology.class);
        cluster = SsdDiskCluster.start(conf);
        DistributedFileSystem fs = cluster.getFileSystem();
        SsdDiskCluster.makeOneSsdDirectory(fs, FILE.getParent());
        new Random(1).nextBytes(CONTENT);
        try (FSDataOutputStream out = fs.create(FILE, (short) 3)) {
            out.write(CONTENT);
        }
        DFSTestUtil.waitReplication(fs, FILE, (short) 3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.shutdown();
        }
    }

    /** Block locations as the NameNode returns them over RPC to this (DataNode-hosting) machine. */
    private static List<LocatedBlock> blocksFromRpc() throws Exception {
        List<LocatedBlock> blocks = cluster.getNameNodeRpc()
                .getBlockLocations(FILE.toString(), 0, Long.MAX_VALUE).getLocatedBlocks();
        assertEquals(BLOCKS, blocks.size());
        for (LocatedBlock block : blocks) {
            Map<StorageType, Long> types = Arrays.stream(block.getStorageTypes())
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertEquals(Map.of(SSD, 1L, DISK, 2L), types, "ONE_SSD placement of " + block.getBlock());
        }
        return blocks;
    }

    private static DatanodeManager datanodeManager() {
        return cluster.getNamesystem().getBlockManager().getDatanodeManager();
    }

    @Test
    void namenodeHandsThisHostTheSsdReplicaFirst() throws Exception {
        for (LocatedBlock block : blocksFromRpc()) {
            assertEquals(SSD, block.getStorageTypes()[0], () -> Arrays.toString(block.getLocations()));
        }
    }

    @Test
    void everyDataNodeReaderGetsTheSsdFirstWhereStockGivesItsOwnDisk() throws Exception {
        NetworkTopology ours = datanodeManager().getNetworkTopology();
        assertSame(ReadCostNetworkTopology.class, ours.getClass());
        DFSNetworkTopology stock = DFSNetworkTopology.getInstance(new Configuration(false));
        int readersWithLocalDisk = 0;
        for (LocatedBlock block : blocksFromRpc()) {
            for (DataNode dn : cluster.getDataNodes()) {
                DatanodeDescriptor reader = datanodeManager().getDatanode(dn.getDatanodeUuid());
                DatanodeInfoWithStorage[] ourOrder = block.getLocations().clone();
                ours.sortByDistance(reader, ourOrder, ourOrder.length, null);
                assertEquals(SSD, ourOrder[0].getStorageType(), reader + " reads " + Arrays.toString(ourOrder));

                DatanodeInfoWithStorage[] stockOrder = block.getLocations().clone();
                stock.sortByDistance(reader, stockOrder, stockOrder.length, null);
                assertEquals(reader, stockOrder[0], "stock order puts the reader's own replica first");
                if (stockOrder[0].getStorageType() == DISK) {
                    readersWithLocalDisk++;
                    assertEquals(reader, ourOrder[1], "the local DISK replica follows the SSD one");
                }
            }
        }
        assertEquals(2 * BLOCKS, readersWithLocalDisk, "two of three DataNodes hold each block on DISK");
    }

    @Test
    void readerOutsideTheClusterGetsTheSsdFirst() throws Exception {
        List<LocatedBlock> blocks = blocksFromRpc();
        datanodeManager().sortLocatedBlocks("192.0.2.10", blocks);
        for (LocatedBlock block : blocks) {
            assertEquals(SSD, block.getStorageTypes()[0], () -> Arrays.toString(block.getLocations()));
        }
    }

    @Test
    void dataReadThroughTheReorderedLocationsIsIntact() throws Exception {
        assertArrayEquals(CONTENT, DFSTestUtil.readFileAsBytes(cluster.getFileSystem(), FILE));
    }
}
