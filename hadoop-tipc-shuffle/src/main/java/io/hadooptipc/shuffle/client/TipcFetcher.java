package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.Fetcher;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import javax.crypto.SecretKey;

/**
 * The stock Fetcher with one change: its connection to a map host is a
 * {@link TipcShuffleConnection}. The fetch loop, hash checks, penalties, retries and
 * memory reservation are Hadoop's own; overriding only {@code openConnection} is also
 * what keeps one source for Hadoop 3.4 (Fetcher extends Thread) and 3.5 (extends
 * SubjectInheritingThread). Where a fetch goes over HTTP/TCP it takes the stock
 * connection, so with encrypted shuffle on it is the stock HTTPS connection.
 */
public class TipcFetcher<K, V> extends Fetcher<K, V> {
    private final PendingTransports transports;
    private final SecretKey shuffleKey;

    TipcFetcher(JobConf job, TaskAttemptID reduceId, ShuffleSchedulerImpl<K, V> scheduler, MergeManager<K, V> merger,
                Reporter reporter, ShuffleClientMetrics metrics, ExceptionReporter exceptionReporter,
                SecretKey shuffleKey, PendingTransports transports) {
        super(job, reduceId, scheduler, merger, reporter, metrics, exceptionReporter, shuffleKey);
        this.transports = transports;
        this.shuffleKey = shuffleKey;
    }

    /** Waits for the task's TIPC side on the first fetch; if it could not be built (the task fails), the stock connection. */
    @Override
    protected synchronized void openConnection(URL url) throws IOException {
        TaskTransports built = transports.get();
        connection = built != null ? built.open(url, new StockFetcherConnections(), shuffleKey) : stockConnection(url);
    }

    /**
     * Returns at once from a host whose TIPC node was lost and that is held ({@link NodeLoss}): its map outputs stay
     * known, and the scheduler parks it when it is freed.
     */
    @Override
    protected void copyFromHost(MapHost host) throws IOException {
        if (scheduler instanceof TipcShuffleScheduler && ((TipcShuffleScheduler<K, V>) scheduler).holds(host)) {
            return;
        }
        super.copyFromHost(host);
    }

    /** A class of its own, not a method reference: see BootstrapFreeTest. */
    private final class StockFetcherConnections implements StockConnections {
        @Override
        public HttpURLConnection open(URL url) throws IOException {
            return stockConnection(url);
        }
    }

    /**
     * The connection the stock fetcher opens for {@code url} (for an https URL, with the job's SSL
     * socket factory and host name verifier), while ours stays the one the fetch loop drives.
     */
    private synchronized HttpURLConnection stockConnection(URL url) throws IOException {
        HttpURLConnection ours = connection;
        try {
            super.openConnection(url);
            return connection;
        } finally {
            connection = ours;
        }
    }
}
