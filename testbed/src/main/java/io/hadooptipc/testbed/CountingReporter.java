package io.hadooptipc.testbed;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.Reporter;

/** A Reporter that only keeps counters, for fetching outside a task. */
public final class CountingReporter implements Reporter {
    public final Counters counters = new Counters();

    /** The value of counter {@code c}, 0 if nothing counted it. */
    public long get(Enum<?> c) {
        return counters.findCounter(c).getValue();
    }

    @Override
    public void setStatus(String status) {
    }

    @Override
    public Counters.Counter getCounter(Enum<?> name) {
        return counters.findCounter(name);
    }

    @Override
    public Counters.Counter getCounter(String group, String name) {
        return counters.findCounter(group, name);
    }

    @Override
    public void incrCounter(Enum<?> key, long amount) {
        counters.incrCounter(key, amount);
    }

    @Override
    public void incrCounter(String group, String counter, long amount) {
        counters.incrCounter(group, counter, amount);
    }

    @Override
    public InputSplit getInputSplit() {
        throw new UnsupportedOperationException();
    }

    @Override
    public float getProgress() {
        return 0;
    }

    @Override
    public void progress() {
    }
}
