package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.Reporter;

/** A Reporter that only keeps counters, for fetching outside a task. */
final class CountingReporter implements Reporter {
    final Counters counters = new Counters();

    long get(TipcShuffleCounter c) {
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
