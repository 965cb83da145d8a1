package io.hadooptipc.shuffle.client;

import java.io.Closeable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The reduce task's thread for {@link NodeLoss}: hold-downs, probes (one at a time) and repeated reports; and
 * its clock, monotonic milliseconds. A daemon, so that it keeps no task JVM alive.
 */
final class NodeLossTimer implements NodeLoss.Delays, LongSupplier, Closeable {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, new Daemon());

    NodeLossTimer() {
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Classes of their own, not lambdas: see BootstrapFreeTest. */
    private static final class Daemon implements ThreadFactory {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "TIPC shuffle node loss");
            t.setDaemon(true);
            return t;
        }
    }

    @Override
    public void after(long millis, Runnable task) {
        try {
            timer.schedule(task, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed: the task is over
        }
    }

    @Override
    public long getAsLong() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
