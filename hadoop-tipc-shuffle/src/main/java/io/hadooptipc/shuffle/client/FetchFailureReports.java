package io.hadooptipc.shuffle.client;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.util.MRJobConfUtil;
import org.apache.hadoop.util.Progressable;

import java.util.Collection;

/**
 * Reports map outputs of a lost host to the ApplicationMaster the way the stock fetcher's reports travel: each
 * attempt added to the reduce task's status ({@code addFetchFailedMap}), which the task's next status update
 * carries and then clears. The AM re-runs a map attempt once its reports, summed over reducers and time, are at
 * least {@code mapreduce.reduce.shuffle.max-fetch-failures-notifications} and at least
 * {@code mapreduce.reduce.shuffle.max-fetch-failures-fraction} of the shuffling reducers; each report here adds
 * the attempt that many times, so one reducer's reports re-run it in a job of up to notifications / fraction shuffling reducers (6 by default), and
 * with more every reducer that fetches from the host reports it.
 */
final class FetchFailureReports {
    private final TaskStatus status;
    private final Progressable progress;
    private final int copies;

    FetchFailureReports(TaskStatus status, Progressable progress, int copies) {
        this.status = status;
        this.progress = progress;
        this.copies = copies;
    }

    /** As many copies of each report as the AM needs from one reducer: its notification threshold. */
    static int copies(Configuration conf) {
        return Math.max(1, conf.getInt(MRJobConfig.MAX_FETCH_FAILURES_NOTIFICATIONS,
                MRJobConfig.DEFAULT_MAX_FETCH_FAILURES_NOTIFICATIONS));
    }

    /** How often a lost host's outstanding attempts are reported again: twice the task's status update interval. */
    static long intervalMillis(Configuration conf) {
        return 2 * MRJobConfUtil.getTaskProgressReportInterval(conf);
    }

    int copies() {
        return copies;
    }

    /** Adds each attempt {@link #copies} times to the next status update, and makes that update a real one. */
    void report(Collection<TaskAttemptID> attempts) {
        if (attempts.isEmpty()) {
            return;
        }
        // Stock's fetchers add to the same list under the scheduler's lock; the task's reporter clears it under
        // the status's own.
        synchronized (status) {
            for (TaskAttemptID attempt : attempts) {
                org.apache.hadoop.mapred.TaskAttemptID old = org.apache.hadoop.mapred.TaskAttemptID.downgrade(attempt);
                for (int i = 0; i < copies; i++) {
                    status.addFetchFailedMap(old);
                }
            }
        }
        progress.progress();
    }
}
