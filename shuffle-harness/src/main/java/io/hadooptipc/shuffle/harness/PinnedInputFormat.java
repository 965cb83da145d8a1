package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.KeyValueTextInputFormat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The shuffle-heavy job's input format, its splits (one per input file, in name order) placed on the hosts that
 * {@link #HOSTS} names in that order: a map's container request asks for its split's host, and the scheduler gives it
 * one there (node-local) when that NodeManager has room, so a fault drill knows which machine holds which map
 * output. A re-run attempt asks for the same host and goes elsewhere once the scheduler's locality delay is spent.
 */
public class PinnedInputFormat extends KeyValueTextInputFormat {
    /** Host names, comma-separated, one per split in input-file order. */
    public static final String HOSTS = "hadoop-tipc.test.pinned.hosts";

    @Override
    public List<InputSplit> getSplits(JobContext job) throws IOException {
        String[] hosts = job.getConfiguration().getStrings(HOSTS);
        List<FileSplit> splits = new ArrayList<>();
        for (InputSplit split : super.getSplits(job)) {
            splits.add((FileSplit) split);
        }
        if (hosts == null || hosts.length != splits.size()) {
            throw new IOException(HOSTS + " names " + (hosts == null ? 0 : hosts.length) + " hosts for "
                    + splits.size() + " splits: one per split, in input-file order");
        }
        splits.sort(Comparator.comparing((FileSplit s) -> s.getPath().toString()).thenComparingLong(FileSplit::getStart));
        List<InputSplit> pinned = new ArrayList<>();
        for (int i = 0; i < splits.size(); i++) {
            FileSplit s = splits.get(i);
            pinned.add(new FileSplit(s.getPath(), s.getStart(), s.getLength(), new String[] {hosts[i]}));
        }
        return pinned;
    }
}
