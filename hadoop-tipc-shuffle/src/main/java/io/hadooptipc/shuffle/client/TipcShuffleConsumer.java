package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.Fetcher;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.MergeManagerImpl;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleThreads;
import org.apache.hadoop.util.Progress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.SecretKey;

/**
 * The reduce side: set {@code mapreduce.job.reduce.shuffle.consumer.plugin.class} to
 * this class. It is the stock {@code Shuffle} plugin built from the stock parts (the
 * scheduler, merge manager, event fetcher, local fetcher), with {@link TipcFetcher}s
 * for remote map hosts and a scheduler that tells the TIPC side of each map host as it becomes known. With encrypted shuffle on, TIPC streams carry TLS with the job's SSL
 * client settings, or plain HTTP on links declared encrypted by the kernel
 * ({@link TipcShuffleConfig#LINKS_ENCRYPTED}); hosts not reached over TIPC are fetched over
 * stock HTTPS.
 */
public class TipcShuffleConsumer<K, V> implements ShuffleConsumerPlugin<K, V>, ExceptionReporter {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleConsumer.class);
    // The stock plugin's progress period and bounds on map-completion events asked for per call,
    // which it keeps private; StockShuffleCopyTest pins these and the copied loop to them.
    static final int PROGRESS_FREQUENCY_MS = 2000;
    static final int MIN_EVENTS_TO_FETCH = 100;
    static final int MAX_EVENTS_TO_FETCH = 10000;
    static final int MAX_RPC_OUTSTANDING_EVENTS = 3000000;

    private Context<K, V> context;
    private JobConf jobConf;
    private TaskAttemptID reduceId;
    private Reporter reporter;
    private ShuffleClientMetrics metrics;
    private TipcShuffleScheduler<K, V> scheduler;
    private MergeManager<K, V> merger;
    private Throwable failure;
    /** The fetchers' routes to map hosts and their TIPC streams; null when the local fetcher does the shuffle. */
    private PendingTransports transports;
    private String failedThread;

    @Override
    public void init(Context<K, V> context) {
        this.context = context;
        this.jobConf = context.getJobConf();
        this.reduceId = context.getReduceId();
        this.reporter = context.getReporter();
        this.metrics = ShuffleClientMetrics.create(reduceId, jobConf);
        this.scheduler = new TipcShuffleScheduler<>(jobConf, context.getStatus(), reduceId, this,
                context.getCopyPhase(), context.getShuffledMapsCounter(), context.getReduceShuffleBytes(),
                context.getFailedShuffleCounter());
        this.merger = new MergeManagerImpl<>(reduceId, jobConf, context.getLocalFS(), context.getLocalDirAllocator(),
                reporter, context.getCodec(), context.getCombinerClass(), context.getCombineCollector(),
                context.getSpilledRecordsCounter(), context.getReduceCombineInputCounter(),
                context.getMergedMapOutputsCounter(), this, context.getMergePhase(), context.getMapOutputFile());
    }

    @Override
    public RawKeyValueIterator run() throws IOException, InterruptedException {
        List<Fetcher<K, V>> fetchers = fetchers(); // before the events, so that the TIPC side hears of every host
        int eventsPerReducer = Math.max(MIN_EVENTS_TO_FETCH, MAX_RPC_OUTSTANDING_EVENTS / jobConf.getNumReduceTasks());
        Runnable stopEvents = ShuffleThreads.startEventFetcher(reduceId, context.getUmbilical(), scheduler, this,
                Math.min(MAX_EVENTS_TO_FETCH, eventsPerReducer));
        for (Fetcher<K, V> f : fetchers) {
            f.start();
        }

        while (!scheduler.waitUntilDone(PROGRESS_FREQUENCY_MS)) {
            reporter.progress();
            throwIfFailed();
        }
        stopEvents.run();
        for (Fetcher<K, V> f : fetchers) {
            f.shutDown();
        }
        closeTransports();
        scheduler.close();

        Progress copyPhase = context.getCopyPhase();
        copyPhase.complete();
        TaskStatus status = context.getStatus();
        status.setPhase(TaskStatus.Phase.SORT);
        Task reduceTask = context.getReduceTask();
        reduceTask.statusUpdate(context.getUmbilical());

        RawKeyValueIterator merged;
        try {
            merged = merger.close();
        } catch (Throwable t) {
            throw new IOException("Error while doing final merge", t);
        }
        throwIfFailed();
        return merged;
    }

    @Override
    public void close() {
        closeTransports();
    }

    private void closeTransports() {
        if (transports != null) {
            transports.close();
            transports = null;
        }
    }

    @Override
    public synchronized void reportException(Throwable t) {
        if (failure == null) {
            failure = t;
            failedThread = Thread.currentThread().getName();
            synchronized (scheduler) { // wake the waiting run() at once, as the stock plugin does
                scheduler.notifyAll();
            }
        }
    }

    private synchronized void throwIfFailed() throws IOException {
        if (failure != null) {
            throw new IOException("error in shuffle in " + failedThread, failure);
        }
    }

    private List<Fetcher<K, V>> fetchers() throws IOException {
        Map<org.apache.hadoop.mapred.TaskAttemptID, MapOutputFile> localMaps = context.getLocalMapFiles();
        SecretKey shuffleKey = context.getReduceTask().getShuffleSecret();
        List<Fetcher<K, V>> fetchers = new ArrayList<>();
        if (localMaps != null) {
            fetchers.add(ShuffleThreads.localFetcher(jobConf, reduceId, scheduler, merger, reporter, metrics, this,
                    shuffleKey, new HashMap<TaskAttemptID, MapOutputFile>(localMaps)));
            return fetchers;
        }
        int count = jobConf.getInt(MRJobConfig.SHUFFLE_PARALLEL_COPIES, 5);
        scheduler.reportLostHostsWith(new FetchFailureReports(context.getStatus(), reporter,
                FetchFailureReports.copies(jobConf)));
        transports = PendingTransports.start(jobConf, reporter, this, scheduler);
        scheduler.tellHostsTo(transports);
        for (int i = 0; i < count; i++) {
            fetchers.add(new TipcFetcher<>(jobConf, reduceId, scheduler, merger, reporter, metrics, this, shuffleKey,
                    transports));
        }
        return fetchers;
    }
}
