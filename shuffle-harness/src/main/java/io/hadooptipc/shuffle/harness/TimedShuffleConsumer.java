package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.util.ReflectionUtils;

import java.io.IOException;
import java.lang.management.ManagementFactory;

/**
 * A shuffle consumer that runs another (the stock {@code Shuffle} or ours, named by
 * {@link #DELEGATE}) and counts the wall time and the reduce task JVM's CPU time its
 * {@code run} took: the shuffle phase itself, from the first fetch to the merged input of
 * the reducer, without the JVM start-up and task set-up that the job history's attempt
 * times include.
 */
public final class TimedShuffleConsumer<K, V> implements ShuffleConsumerPlugin<K, V> {
    public static final String DELEGATE = "io.hadooptipc.shuffle.timed.delegate";

    /** Job counters, summed over reduce tasks like every task counter. */
    public enum Counter {
        SHUFFLE_MILLIS,
        SHUFFLE_CPU_MILLIS
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ShuffleConsumerPlugin<K, V> delegate;
    private Context<K, V> context;

    @Override
    @SuppressWarnings("unchecked")
    public void init(Context<K, V> context) {
        this.context = context;
        delegate = ReflectionUtils.newInstance(
                context.getJobConf().getClass(DELEGATE, null, ShuffleConsumerPlugin.class), context.getJobConf());
        delegate.init(context);
    }

    @Override
    public RawKeyValueIterator run() throws IOException, InterruptedException {
        long start = System.nanoTime();
        long cpuStart = OS.getProcessCpuTime();
        RawKeyValueIterator merged = delegate.run();
        context.getReporter().incrCounter(Counter.SHUFFLE_MILLIS, (System.nanoTime() - start) / 1_000_000);
        context.getReporter().incrCounter(Counter.SHUFFLE_CPU_MILLIS, (OS.getProcessCpuTime() - cpuStart) / 1_000_000);
        return merged;
    }

    @Override
    public void close() {
        delegate.close();
    }
}
