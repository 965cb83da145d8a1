package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.util.Progress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stock scheduler, which also tells the task's TIPC side of each map host when the host's first map
 * output becomes known (from the map-completion events), so that a stream to it can be connected before
 * a fetcher comes to it; and which holds the map hosts whose TIPC node was lost ({@link NodeLoss}).
 * <p>
 * A held host is parked: given to no fetcher (drawn from the stock queue, it is marked penalized and set
 * aside, which keeps it out of the queue until released, since stock re-queues a penalized host only from a
 * penalty of its own), and its failures are not the stock scheduler's (no copy failure counted, so neither its
 * per-map reports nor its reducer-health check see them). A lost host's outstanding map outputs are reported
 * to the ApplicationMaster ({@link FetchFailureReports}); released, a parked host is queued again.
 */
final class TipcShuffleScheduler<K, V> extends ShuffleSchedulerImpl<K, V> implements NodeLoss.Hosts {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleScheduler.class);

    private final Set<String> hosts = new HashSet<>(); // guarded by this
    private PendingTransports transports; // guarded by this; null: hosts are not told
    /** Map attempts known per host and not yet copied, obsolete or of a failed task. */
    private final Map<String, Set<TaskAttemptID>> outstanding = new HashMap<>(); // guarded by this
    private final Set<TaskID> done = new HashSet<>(); // guarded by this
    private final Set<String> held = new HashSet<>(); // guarded by this
    private final Set<String> lost = new HashSet<>(); // guarded by this
    private final Map<String, MapHost> parked = new HashMap<>(); // guarded by this
    private FetchFailureReports reports; // guarded by this; null: lost hosts are not reported

    TipcShuffleScheduler(JobConf job, TaskStatus status, TaskAttemptID reduceId, ExceptionReporter reporter,
                         Progress progress, Counters.Counter shuffledMapsCounter,
                         Counters.Counter reduceShuffleBytes, Counters.Counter failedShuffleCounter) {
        super(job, status, reduceId, reporter, progress, shuffledMapsCounter, reduceShuffleBytes, failedShuffleCounter);
    }

    /** Tells {@code pending} of each map host from now on. */
    synchronized void tellHostsTo(PendingTransports pending) {
        this.transports = pending;
    }

    /** Reports lost hosts' outstanding map outputs through {@code r} from now on. */
    synchronized void reportLostHostsWith(FetchFailureReports r) {
        this.reports = r;
    }

    @Override
    public synchronized void addKnownMapOutput(String hostName, String hostUrl, TaskAttemptID mapId) {
        super.addKnownMapOutput(hostName, hostUrl, mapId);
        if (!done.contains(mapId.getTaskID())) {
            Set<TaskAttemptID> attempts = outstanding.get(hostName);
            if (attempts == null) {
                attempts = new LinkedHashSet<>();
                outstanding.put(hostName, attempts);
            }
            attempts.add(mapId);
        }
        if (transports != null && hosts.add(hostName)) {
            try {
                transports.hostKnown(new URL(hostUrl));
            } catch (MalformedURLException e) {
                LOG.debug("Map host {}: no stream opened ahead to {}", hostName, hostUrl, e);
            }
        }
    }

    @Override
    public synchronized void copySucceeded(TaskAttemptID mapId, MapHost host, long bytes, long startMillis,
                                           long endMillis, MapOutput<K, V> output) throws IOException {
        super.copySucceeded(mapId, host, bytes, startMillis, endMillis, output);
        taskDone(mapId.getTaskID());
    }

    @Override
    public synchronized void obsoleteMapOutput(TaskAttemptID mapId) {
        super.obsoleteMapOutput(mapId);
        for (Set<TaskAttemptID> attempts : outstanding.values()) {
            attempts.remove(mapId);
        }
    }

    @Override
    public synchronized void tipFailed(TaskID taskId) {
        super.tipFailed(taskId);
        taskDone(taskId);
    }

    private void taskDone(TaskID task) {
        done.add(task);
        for (Set<TaskAttemptID> attempts : outstanding.values()) {
            for (Iterator<TaskAttemptID> it = attempts.iterator(); it.hasNext(); ) {
                if (it.next().getTaskID().equals(task)) {
                    it.remove();
                }
            }
        }
    }

    /** A host from the stock queue, never a held one: each held host drawn is parked, and the wait goes on. */
    @Override
    public synchronized MapHost getHost() throws InterruptedException {
        while (true) {
            MapHost host = super.getHost();
            if (!held.contains(host.getHostName())) {
                return host;
            }
            park(host);
        }
    }

    @Override
    public synchronized void freeHost(MapHost host) {
        if (held.contains(host.getHostName())) {
            park(host);
        }
        super.freeHost(host); // a parked host is penalized: stock does not queue it
    }

    /** A held host's failures are no copy failures: its fetches fail at once because its node was lost. */
    @Override
    public synchronized void copyFailed(TaskAttemptID mapId, MapHost host, boolean readError, boolean connectExcpt) {
        if (held.contains(host.getHostName())) {
            LOG.debug("{} from {}: not a copy failure, the host's TIPC node was lost", mapId, host.getHostName());
            return;
        }
        super.copyFailed(mapId, host, readError, connectExcpt);
    }

    @Override
    public synchronized void hostFailed(String hostname) {
        if (held.contains(hostname)) {
            return;
        }
        super.hostFailed(hostname);
    }

    /** Whether {@code host}'s node was lost and it is not released: a fetch from it returns at once. */
    synchronized boolean holds(MapHost host) {
        return held.contains(host.getHostName());
    }

    private void park(MapHost host) {
        host.penalize();
        parked.put(host.getHostName(), host);
    }

    @Override
    public synchronized void held(String host) {
        held.add(host);
    }

    @Override
    public synchronized void lost(String host, int node, long sinceMillis) {
        held.add(host);
        lost.add(host);
        report(host);
    }

    @Override
    public synchronized void stillLost(String host) {
        if (lost.contains(host)) {
            report(host);
        }
    }

    private void report(String host) {
        Set<TaskAttemptID> attempts = outstanding.get(host);
        if (reports != null && attempts != null && !attempts.isEmpty()) {
            List<TaskAttemptID> now = new ArrayList<>(attempts);
            reports.report(now);
            LOG.info("Reported {} map outputs of lost host {} to the ApplicationMaster, {} times each: {}", now.size(),
                    host, reports.copies(), now);
        }
    }

    @Override
    public synchronized void released(String host) {
        held.remove(host);
        lost.remove(host);
        MapHost parkedHost = parked.remove(host);
        if (parkedHost != null) {
            parkedHost.markAvailable(); // PENALIZED to PENDING (maps known) or IDLE
            super.freeHost(parkedHost);
        }
    }
}
