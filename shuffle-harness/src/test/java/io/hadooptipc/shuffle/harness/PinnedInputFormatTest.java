package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PinnedInputFormatTest {
    @Test
    void placesEachSplitOnItsHostInInputFileOrder(@TempDir Path dir) throws Exception {
        ShuffleJob.SHUFFLE_HEAVY.writeInput(dir, 4, 10);
        Job job = job(dir, "m2,m2,m3,m3");
        List<InputSplit> splits = new PinnedInputFormat().getSplits(job);
        assertEquals(4, splits.size());
        for (int i = 0; i < 4; i++) {
            FileSplit split = (FileSplit) splits.get(i);
            assertTrue(split.getPath().getName().equals("part" + i + ".txt"), split.getPath().toString());
            assertArrayEquals(new String[] {i < 2 ? "m2" : "m3"}, split.getLocations());
        }
    }

    @Test
    void refusesAHostListThatDoesNotNameEverySplit(@TempDir Path dir) throws Exception {
        ShuffleJob.SHUFFLE_HEAVY.writeInput(dir, 4, 10);
        IOException e = assertThrows(IOException.class, () -> new PinnedInputFormat().getSplits(job(dir, "m2,m3")));
        assertTrue(e.getMessage().contains("2 hosts for 4 splits"), e.getMessage());
    }

    private static Job job(Path dir, String hosts) throws IOException {
        Configuration conf = new Configuration();
        conf.set("fs.defaultFS", "file:///");
        conf.set(PinnedInputFormat.HOSTS, hosts);
        Job job = Job.getInstance(conf);
        FileInputFormat.addInputPath(job, new org.apache.hadoop.fs.Path(dir.toUri()));
        return job;
    }
}
