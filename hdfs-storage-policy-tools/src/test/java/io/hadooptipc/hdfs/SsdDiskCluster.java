package io.hadooptipc.hdfs;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;

/**
 * The smallest cluster on which ONE_SSD means something: three DataNodes with one SSD and
 * one DISK volume each, so every block gets one SSD and two DISK replicas.
 */
public final class SsdDiskCluster {
    /** Small blocks, so that a few MB make several blocks. */
    public static final int BLOCK_SIZE = 1024 * 1024;

    private SsdDiskCluster() {
    }

    public static MiniDFSCluster start(Configuration conf) throws IOException {
        conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK_SIZE);
        StorageType[] volumes = {StorageType.SSD, StorageType.DISK};
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(3).storagesPerDatanode(2)
                .storageTypes(new StorageType[][] {volumes, volumes, volumes}).build();
        cluster.waitActive();
        return cluster;
    }

    public static void makeOneSsdDirectory(DistributedFileSystem fs, Path dir) throws IOException {
        fs.mkdirs(dir);
        fs.setStoragePolicy(dir, HdfsConstants.ONESSD_STORAGE_POLICY_NAME);
    }
}
