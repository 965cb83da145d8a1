package org.apache.hadoop.mapreduce.task.reduce;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.TaskAttemptID;

import javax.crypto.SecretKey;
import java.util.Map;

/**
 * Hadoop's map-completion event thread and local fetcher are package-private; a
 * ShuffleConsumerPlugin that only replaces the remote fetchers
 * ({@code io.hadooptipc.shuffle.client.TipcShuffleConsumer}) reuses them through this
 * class instead of copying them. Nothing else lives in Hadoop's package.
 */
public final class ShuffleThreads {
    private ShuffleThreads() {
    }

    /** Starts the stock event fetcher; the returned action stops it. */
    public static <K, V> Runnable startEventFetcher(TaskAttemptID reduceId, TaskUmbilicalProtocol umbilical,
                                                    ShuffleSchedulerImpl<K, V> scheduler,
                                                    ExceptionReporter exceptionReporter, int maxEventsToFetch) {
        EventFetcher<K, V> events = new EventFetcher<>(reduceId, umbilical, scheduler, exceptionReporter,
                maxEventsToFetch);
        events.start();
        return events::shutDown;
    }

    /** The stock fetcher for map outputs on this node's own disks (local job runner). */
    public static <K, V> Fetcher<K, V> localFetcher(JobConf job, TaskAttemptID reduceId,
                                                    ShuffleSchedulerImpl<K, V> scheduler, MergeManager<K, V> merger,
                                                    Reporter reporter, ShuffleClientMetrics metrics,
                                                    ExceptionReporter exceptionReporter, SecretKey shuffleKey,
                                                    Map<TaskAttemptID, MapOutputFile> localMapFiles) {
        return new LocalFetcher<>(job, reduceId, scheduler, merger, reporter, metrics, exceptionReporter,
                shuffleKey, localMapFiles);
    }
}
