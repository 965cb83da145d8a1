package io.hadooptipc.shuffle.client;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.util.Progress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stock scheduler with map hosts held because their TIPC node was lost: never handed to a fetcher, their
 * failures not stock's, their outstanding map outputs reported in a real reduce task status, queued again
 * once released.
 */
class HeldHostsSchedulerTest {
    private static final String JOB = "job_1700000000000_0001";
    private static final String H1 = "10.0.0.7:13562";
    private static final String H2 = "10.0.0.8:13562";

    private final Counters testCounters = new Counters();
    private final TaskStatus status = reduceTaskStatus();
    private final AtomicInteger progressCalls = new AtomicInteger();
    private final TipcShuffleScheduler<Text, Text> scheduler;
    private final ExecutorService fetchers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fetcher");
        t.setDaemon(true);
        return t;
    });

    HeldHostsSchedulerTest() {
        JobConf job = new JobConf(false);
        job.setNumMapTasks(8);
        scheduler = new TipcShuffleScheduler<>(job, status,
                TaskAttemptID.forName("attempt_1700000000000_0001_r_000000_0"), t -> {
                    throw new AssertionError(t);
                }, new Progress(), counter("shuffled maps"), counter("shuffle bytes"), counter("failed shuffles"));
        scheduler.reportLostHostsWith(new FetchFailureReports(status, progressCalls::incrementAndGet,
                FetchFailureReports.copies(job)));
    }

    @AfterEach
    void close() throws InterruptedException {
        fetchers.shutdownNow();
        scheduler.close();
    }

    /** A real ReduceTaskStatus, the class whose fetch-failed maps go to the AM with the next status update. */
    private static TaskStatus reduceTaskStatus() {
        try {
            Constructor<?> c = Class.forName("org.apache.hadoop.mapred.ReduceTaskStatus").getDeclaredConstructor();
            c.setAccessible(true);
            return (TaskStatus) c.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aHeldHostIsNeverHandedToAFetcherAndAFetcherWaitingForAHostDoesNotSpin() throws Exception {
        mapDone(H1, 0);
        mapDone(H2, 1);
        scheduler.held(H1);
        MapHost first = scheduler.getHost();
        assertEquals(H2, first.getHostName(), "the held host is parked, the other handed out");
        scheduler.getMapsForHost(first);
        scheduler.freeHost(first);

        AtomicReference<Thread> waiting = new AtomicReference<>();
        Future<MapHost> next = fetchers.submit(() -> {
            waiting.set(Thread.currentThread());
            return scheduler.getHost();
        });
        assertThrows(TimeoutException.class, () -> next.get(300, TimeUnit.MILLISECONDS), "only a held host is left");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long id = waiting.get().getId();
        long cpuBefore = threads.getThreadCpuTime(id);
        Thread.sleep(500);
        long cpuMillis = TimeUnit.NANOSECONDS.toMillis(threads.getThreadCpuTime(id) - cpuBefore);
        assertEquals(Thread.State.WAITING, waiting.get().getState());
        assertTrue(cpuMillis < 50, "a fetcher waiting for a host used " + cpuMillis + " ms of CPU in 500 ms");

        scheduler.released(H1);
        MapHost back = next.get(10, TimeUnit.SECONDS);
        assertEquals(H1, back.getHostName(), "released, the parked host is queued again");
        assertEquals(List.of(map(0)), scheduler.getMapsForHost(back), "with its map outputs");
    }

    @Test
    void aHostHeldWhileAFetcherHasItIsParkedWhenFreedNotQueued() throws Exception {
        mapDone(H1, 0);
        MapHost h = scheduler.getHost();
        scheduler.held(H1); // its node lost while the fetch was under way
        scheduler.putBackKnownMapOutput(h, map(0)); // what the failed fetch puts back
        scheduler.freeHost(h);
        mapDone(H1, 2); // a map output known later does not queue it either
        Future<MapHost> next = fetchers.submit(scheduler::getHost);
        assertThrows(TimeoutException.class, () -> next.get(300, TimeUnit.MILLISECONDS));
        scheduler.released(H1);
        assertEquals(H1, next.get(10, TimeUnit.SECONDS).getHostName());
    }

    @Test
    void aHeldHostsFailuresAreNotStocksCopyFailures() throws Exception {
        mapDone(H1, 0);
        mapDone(H2, 1);
        MapHost h1 = host(H1);
        scheduler.held(H1);
        for (int i = 0; i < 20; i++) { // stock would report the map at once (a read error) and judge the reducer
            scheduler.hostFailed(H1);
            scheduler.copyFailed(map(0), h1, true, false);
        }
        assertEquals(List.of(), status.getFetchFailedMaps());
        assertEquals(0, counter("failed shuffles").getValue());

        MapHost h2 = host(H2);
        scheduler.copyFailed(map(1), h2, true, false); // a host not held: stock's rules, which report a read error
        assertEquals(List.of(old(map(1))), status.getFetchFailedMaps());
        assertEquals(1, counter("failed shuffles").getValue());
    }

    @Test
    void aLostHostsOutstandingMapOutputsAreReportedAsOftenAsTheAmNeedsAndNotThoseDoneOrObsolete() throws Exception {
        for (int m = 0; m < 5; m++) {
            mapDone(H1, m);
        }
        mapDone(H2, 5);
        MapHost h1 = host(H1);
        scheduler.copySucceeded(map(1), h1, 10, 0, 1, new Committed(map(1))); // fetched before the loss
        scheduler.obsoleteMapOutput(map(2)); // the AM declared it obsolete
        scheduler.tipFailed(map(3).getTaskID());

        scheduler.held(H1);
        scheduler.lost(H1, 0x1001002, 5_000);
        List<org.apache.hadoop.mapred.TaskAttemptID> reported = status.getFetchFailedMaps();
        assertEquals(List.of(old(map(0)), old(map(0)), old(map(0)), old(map(4)), old(map(4)), old(map(4))), reported,
                MRJobConfig.MAX_FETCH_FAILURES_NOTIFICATIONS + " (3) copies of each outstanding attempt");
        assertTrue(progressCalls.get() > 0, "the next status update is a real one");

        reported.clear(); // the task's status update sent and cleared them
        scheduler.obsoleteMapOutput(map(4)); // re-run elsewhere: the old attempt is obsolete
        scheduler.stillLost(H1);
        assertEquals(List.of(old(map(0)), old(map(0)), old(map(0))), status.getFetchFailedMaps());

        status.getFetchFailedMaps().clear();
        scheduler.released(H1);
        scheduler.stillLost(H1);
        assertEquals(List.of(), status.getFetchFailedMaps(), "a released host is reported no more");
    }

    @Test
    void reportsAreAsManyAsTheAmsThresholdAndRepeatAtTwiceTheProgressInterval() {
        JobConf job = new JobConf(false);
        assertEquals(3, FetchFailureReports.copies(job));
        job.setInt(MRJobConfig.MAX_FETCH_FAILURES_NOTIFICATIONS, 5);
        assertEquals(5, FetchFailureReports.copies(job));
        job.setLong(MRJobConfig.TASK_PROGRESS_REPORT_INTERVAL, 3_000);
        assertEquals(6_000, FetchFailureReports.intervalMillis(job));
        assertFalse(FetchFailureReports.intervalMillis(new JobConf(false)) <= 0);
    }

    private void mapDone(String host, int map) {
        scheduler.addKnownMapOutput(host, "http://" + host + "/mapOutput?job=" + JOB + "&reduce=0&map=", map(map));
    }

    private MapHost host(String name) throws InterruptedException {
        List<MapHost> taken = new ArrayList<>();
        try {
            while (true) {
                MapHost h = scheduler.getHost();
                if (h.getHostName().equals(name)) {
                    scheduler.getMapsForHost(h).forEach(m -> scheduler.putBackKnownMapOutput(h, m));
                    return h;
                }
                taken.add(h);
            }
        } finally {
            for (MapHost h : taken) {
                scheduler.freeHost(h);
            }
        }
    }

    private static TaskAttemptID map(int m) {
        return TaskAttemptID.forName("attempt_1700000000000_0001_m_00000" + m + "_0");
    }

    private static org.apache.hadoop.mapred.TaskAttemptID old(TaskAttemptID id) {
        return org.apache.hadoop.mapred.TaskAttemptID.downgrade(id);
    }

    private Counters.Counter counter(String name) {
        return testCounters.findCounter("test", name);
    }

    /** A map output that commits to nothing. */
    private static final class Committed extends MapOutput<Text, Text> {
        Committed(TaskAttemptID mapId) {
            super(mapId, 10, true);
        }

        @Override
        public void shuffle(MapHost host, InputStream input, long compressedLength, long decompressedLength,
                            ShuffleClientMetrics metrics, Reporter reporter) {
        }

        @Override
        public void commit() {
        }

        @Override
        public void abort() {
        }

        @Override
        public String getDescription() {
            return "committed";
        }
    }
}
