package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/**
 * A reduce task's TIPC side, built in a thread of its own so that the fetchers start at once:
 * building it (the native library, a topology connection and its first reports, the task's
 * TIPC counter group) overlaps the wait for the first map-completion events, and a fetcher
 * waits for it only when it opens its first connection. Map hosts that become known meanwhile are
 * told to it once built. A failure to build it fails the task,
 * as it did when the fetchers waited for it.
 */
final class PendingTransports {
    private TaskTransports transports; // guarded by this; set once built
    private boolean done; // guarded by this
    /** Map hosts known before the transports were built, told to them once built. */
    private final List<URL> knownHosts = new ArrayList<>(); // guarded by this

    PendingTransports() {
    }

    /** Starts building the TIPC side of a reduce task of {@code job}; a failure goes to {@code failures}. */
    static PendingTransports start(JobConf job, Reporter reporter, ExceptionReporter failures) {
        return start(job, reporter, failures, null);
    }

    /** As {@link #start(JobConf, Reporter, ExceptionReporter)}, holding hosts whose TIPC node is lost through {@code hosts}. */
    static PendingTransports start(JobConf job, Reporter reporter, ExceptionReporter failures, NodeLoss.Hosts hosts) {
        PendingTransports pending = new PendingTransports();
        new Builder(job, reporter, failures, pending, hosts).start();
        return pending;
    }

    /** Transports already built. */
    static PendingTransports of(TaskTransports transports) {
        PendingTransports pending = new PendingTransports();
        pending.built(transports);
        return pending;
    }

    /** The transports, once built; null if building them failed (the task has been told). */
    synchronized TaskTransports get() throws InterruptedIOException {
        while (!done) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for the TIPC shuffle transports");
            }
        }
        return transports;
    }

    /** See {@link TaskTransports#hostKnown}: told now if built, else once built; never waits. */
    synchronized void hostKnown(URL url) {
        if (!done) {
            knownHosts.add(url);
        } else if (transports != null) {
            transports.hostKnown(url);
        }
    }

    /** Closes the transports once built, waiting through interrupts: the task is done with them, and they must not leak. */
    void close() {
        TaskTransports built;
        boolean interrupted = false;
        synchronized (this) {
            while (!done) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            built = transports;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (built != null) {
            built.close();
        }
    }

    synchronized void built(TaskTransports t) {
        transports = t;
        done = true;
        notifyAll();
        if (t != null) {
            for (URL url : knownHosts) {
                t.hostKnown(url);
            }
        }
        knownHosts.clear();
    }

    /** The building thread: a class of its own, not a lambda (see BootstrapFreeTest). */
    private static final class Builder extends Thread {
        private final JobConf job;
        private final Reporter reporter;
        private final ExceptionReporter failures;
        private final PendingTransports pending;
        private final NodeLoss.Hosts hosts;

        Builder(JobConf job, Reporter reporter, ExceptionReporter failures, PendingTransports pending,
                NodeLoss.Hosts hosts) {
            super("TIPC shuffle transports");
            setDaemon(true);
            this.job = job;
            this.reporter = reporter;
            this.failures = failures;
            this.pending = pending;
            this.hosts = hosts;
        }

        @Override
        public void run() {
            TaskTransports t = null;
            try {
                reporter.getCounter(TipcShuffleCounter.TIPC_MAP_OUTPUTS); // the counter group, made once, here
                t = TaskTransports.start(job, reporter, hosts);
            } catch (IOException | RuntimeException e) {
                failures.reportException(e);
            } finally {
                pending.built(t);
            }
        }
    }
}
