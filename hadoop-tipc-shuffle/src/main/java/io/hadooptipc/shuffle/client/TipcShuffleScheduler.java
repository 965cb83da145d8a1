package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.util.Progress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.HashSet;
import java.util.Set;

/**
 * The stock scheduler, which also tells the task's TIPC side of each map host when the host's first map
 * output becomes known (from the map-completion events), so that a stream to it can be connected before
 * a fetcher comes to it.
 */
final class TipcShuffleScheduler<K, V> extends ShuffleSchedulerImpl<K, V> {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleScheduler.class);

    private final Set<String> hosts = new HashSet<>(); // guarded by this
    private PendingTransports transports; // guarded by this; null: hosts are not told

    TipcShuffleScheduler(JobConf job, TaskStatus status, TaskAttemptID reduceId, ExceptionReporter reporter,
                         Progress progress, Counters.Counter shuffledMapsCounter,
                         Counters.Counter reduceShuffleBytes, Counters.Counter failedShuffleCounter) {
        super(job, status, reduceId, reporter, progress, shuffledMapsCounter, reduceShuffleBytes, failedShuffleCounter);
    }

    /** Tells {@code pending} of each map host from now on. */
    synchronized void tellHostsTo(PendingTransports pending) {
        this.transports = pending;
    }

    @Override
    public synchronized void addKnownMapOutput(String hostName, String hostUrl, TaskAttemptID mapId) {
        super.addKnownMapOutput(hostName, hostUrl, mapId);
        if (transports != null && hosts.add(hostName)) {
            try {
                transports.hostKnown(new URL(hostUrl));
            } catch (MalformedURLException e) {
                LOG.debug("Map host {}: no stream opened ahead to {}", hostName, hostUrl, e);
            }
        }
    }
}
