package io.hadooptipc.shuffle.harness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShuffleClusterTest {
    @TempDir
    Path dir;

    /** Each side's warm-up job stages the same input: the second copy must not land inside the first. */
    @Test
    void stagingAnInputAgainReplacesItsFirstCopy() throws Exception {
        Path local = Files.createDirectories(dir.resolve("local/warm-up-job/in"));
        Files.writeString(local.resolve("part-0"), "a\n");
        FileSystem fs = FileSystem.getLocal(new Configuration());
        org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(dir.resolve("staged").toUri());

        ShuffleCluster.stage(fs, local, root);
        Files.writeString(local.resolve("part-1"), "b\n");
        org.apache.hadoop.fs.Path staged = ShuffleCluster.stage(fs, local, root);

        FileStatus[] files = fs.listStatus(staged, p -> !p.getName().startsWith("."));
        assertArrayEquals(new String[] {"part-0", "part-1"},
                Arrays.stream(files).map(f -> f.getPath().getName()).sorted().toArray(String[]::new));
        try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(staged, "part-1"))) {
            assertEquals("b\n", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
