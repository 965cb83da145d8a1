package io.hadooptipc.hdfs.affinity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.VolumeChoosingPolicy;
import org.apache.hadoop.util.ServicePlugin;
import org.junit.jupiter.api.Test;

/** The hook as an operator configures it: a plugin and a volume choosing policy, nothing patched. */
class AffinityMiniClusterTest {
    @Test
    void everyWriterThreadRunsOnTheCpuTheManagerChoseForIt() throws Exception {
        Configuration conf = new Configuration();
        conf.setClass(DFSConfigKeys.DFS_DATANODE_FSDATASET_VOLUME_CHOOSING_POLICY_KEY,
                AffinityVolumeChoosingPolicy.class, VolumeChoosingPolicy.class);
        conf.setClass(AffinitySettings.VOLUME_CHOOSING_POLICY, RecordingVolumeChoosingPolicy.class,
                VolumeChoosingPolicy.class);
        conf.setClass(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, AffinityServicePlugin.class, ServicePlugin.class);
        conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 1024 * 1024);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
        try {
            cluster.waitActive();
            RecordingVolumeChoosingPolicy.PLACEMENTS.clear();
            byte[] data = new byte[3 * 1024 * 1024];
            new Random(3).nextBytes(data);
            Path file = new Path("/affinity/file");
            try (FSDataOutputStream out = cluster.getFileSystem().create(file, (short) 1)) {
                out.write(data);
            }
            assertArrayEquals(data, DFSTestUtil.readFileAsBytes(cluster.getFileSystem(), file));

            List<RecordingVolumeChoosingPolicy.Placement> placements =
                    List.copyOf(RecordingVolumeChoosingPolicy.PLACEMENTS);
            assertTrue(placements.size() >= 3, "one writer per block: " + placements);
            for (RecordingVolumeChoosingPolicy.Placement p : placements) {
                assertTrue(p.chosenCpu().isPresent(), p.toString());
                assertEquals(String.valueOf(p.chosenCpu().getAsInt()), p.cpusAllowedList(), p.toString());
            }
        } finally {
            cluster.shutdown();
        }
    }
}
