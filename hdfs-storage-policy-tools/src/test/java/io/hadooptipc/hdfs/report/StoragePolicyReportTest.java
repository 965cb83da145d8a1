package io.hadooptipc.hdfs.report;

import static org.apache.hadoop.fs.StorageType.DISK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfoWithStorage;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.hadooptipc.hdfs.SsdDiskCluster;

/** The report against a stock MiniDFSCluster: three DataNodes with an SSD and a DISK volume each. */
class StoragePolicyReportTest {
    private static final int BLOCK_SIZE = SsdDiskCluster.BLOCK_SIZE;
    private static final Path ONE_SSD_FILE = new Path("/reports/one-ssd/file");
    private static final Path MOVED_FILE = new Path("/reports/hot-then-one-ssd/file");

    private static MiniDFSCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = SsdDiskCluster.start(new Configuration());
        DistributedFileSystem fs = cluster.getFileSystem();
        SsdDiskCluster.makeOneSsdDirectory(fs, ONE_SSD_FILE.getParent());
        DFSTestUtil.createFile(fs, ONE_SSD_FILE, 2L * BLOCK_SIZE, (short) 3, 1L);
        // written under HOT; the new policy is not applied until the Mover runs
        DFSTestUtil.createFile(fs, MOVED_FILE, BLOCK_SIZE, (short) 3, 2L);
        fs.setStoragePolicy(MOVED_FILE, "ONE_SSD");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.shutdown();
        }
    }

    private static List<String> report(String... args) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = ToolRunner.run(new Configuration(cluster.getConfiguration(0)),
                new StoragePolicyReport(new PrintStream(bytes, true, StandardCharsets.UTF_8)), args);
        assertEquals(0, rc);
        return bytes.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
    }

    private static String lineAfter(List<String> lines, String start, String prefix) {
        int from = lines.indexOf(lines.stream().filter(l -> l.startsWith(start)).findFirst().orElseThrow());
        return lines.subList(from, lines.size()).stream().filter(l -> l.strip().startsWith(prefix))
                .findFirst().orElseThrow().strip();
    }

    @Test
    void showsPolicyPlacementAndBothReadOrdersForADataNodeWithALocalDisk() throws Exception {
        LocatedBlock block = cluster.getFileSystem().getClient()
                .getLocatedBlocks(ONE_SSD_FILE.toString(), 0).get(0);
        DatanodeInfoWithStorage diskReplica = List.of(block.getLocations()).stream()
                .filter(r -> r.getStorageType() == DISK).findFirst().orElseThrow();
        List<String> lines = report("-R", "-client", diskReplica.getXferAddr(), "/reports");

        assertTrue(lines.get(0).contains("DataNode " + diskReplica.getXferAddr()), lines.get(0));
        String file = ONE_SSD_FILE.toString();
        assertTrue(lineAfter(lines, file, file).contains("policy ONE_SSD  replication 3"), String.join("\n", lines));
        assertTrue(lineAfter(lines, file, "block 0").contains("satisfies ONE_SSD [SSD, DISK, DISK]"));
        assertEquals("replicas", lineAfter(lines, file, "replicas").split(" ")[0]);
        assertTrue(lineAfter(lines, file, "stock").startsWith("stock    " + diskReplica.getXferAddr() + " DISK"),
                "stock order: the client's own DISK replica first");
        assertTrue(lineAfter(lines, file, "ours").matches("ours +\\S+ SSD, .*"), "our order: the SSD replica first");
        assertTrue(lines.contains("  2 of 2 blocks satisfy ONE_SSD"));
    }

    @Test
    void flagsBlocksWrittenUnderAnotherPolicy() throws Exception {
        List<String> lines = report("-R", "/reports");
        String file = MOVED_FILE.toString();
        assertTrue(lineAfter(lines, file, "block 0")
                .endsWith("does NOT satisfy ONE_SSD [SSD, DISK, DISK]: missing [SSD], not asked for [DISK]"),
                String.join("\n", lines));
        assertTrue(lines.contains("  0 of 1 blocks satisfy ONE_SSD"));
    }

    @Test
    void withoutRecursionListsOnlyFilesDirectlyUnderThePath() throws Exception {
        List<String> lines = report("/reports");
        assertEquals(1, lines.size(), String.join("\n", lines));
    }

    @Test
    void rejectsAStrayArgument() throws Exception {
        assertEquals(2, ToolRunner.run(new Configuration(cluster.getConfiguration(0)),
                new StoragePolicyReport(System.out), new String[] {"/a", "/b"}));
    }
}
