package io.hadooptipc.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestbedClusterTest {
    @TempDir
    Path dir;

    @Test
    void mapContainersFillAMachineWithAsManyMapsAsAsked() {
        assertEquals(1536, TestbedCluster.mapContainerMb(3072, 2, 128));
        assertEquals(1024, TestbedCluster.mapContainerMb(3072, 3, 128));
        // 1,500 MB would be rounded up to 1,536 by the scheduler, and only one would fit in 3,000.
        assertEquals(1408, TestbedCluster.mapContainerMb(3000, 2, 128));
        assertThrows(IllegalArgumentException.class, () -> TestbedCluster.mapContainerMb(256, 3, 128));
    }

    @Test
    void mapsBesideTheirReducersAreRefused() {
        TestbedCluster.requireMapsApart("job", Set.of("m2", "m3"), Set.of("m1"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TestbedCluster.requireMapsApart("job", Set.of("m1", "m2"), Set.of("m1")));
        assertTrue(e.getMessage().startsWith("job ran maps on [m1], where its reducers ran too"), e.getMessage());
    }

    /** Each side's warm-up job stages the same input: the second copy must not land inside the first. */
    @Test
    void stagingAnInputAgainReplacesItsFirstCopy() throws Exception {
        Path local = Files.createDirectories(dir.resolve("local/warm-up-job/in"));
        Files.writeString(local.resolve("part-0"), "a\n");
        FileSystem fs = FileSystem.getLocal(new Configuration());
        org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(dir.resolve("staged").toUri());

        TestbedCluster.stage(fs, local, root);
        Files.writeString(local.resolve("part-1"), "b\n");
        org.apache.hadoop.fs.Path staged = TestbedCluster.stage(fs, local, root);

        FileStatus[] files = fs.listStatus(staged, p -> !p.getName().startsWith("."));
        assertArrayEquals(new String[] {"part-0", "part-1"},
                Arrays.stream(files).map(f -> f.getPath().getName()).sorted().toArray(String[]::new));
        try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(staged, "part-1"))) {
            assertEquals("b\n", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
