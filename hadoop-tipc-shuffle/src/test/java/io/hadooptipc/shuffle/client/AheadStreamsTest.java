package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.tipc.TipcAvailability;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.Progress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URL;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.mockito.Mockito.mock;

/**
 * Streams connected as map hosts become known: the scheduler hears of each host from the map-completion
 * events, tells the task's TIPC side (once built), which connects one stream to the host for its first fetch.
 */
class AheadStreamsTest {
    private static final TipcAvailability TIPC_UP = new TipcAvailability(TipcAvailability.Level.CLUSTER, "test", 0, 1);
    private static final Timeouts TIMEOUTS = new Timeouts(1000, 60_000, 60_000);
    private static final String JOB = "job_1700000000000_0001";

    private final CountingReporter reporter = new CountingReporter();
    private final TransferCounters counters = new TransferCounters(reporter);
    private final List<ShuffleServiceName> openedTo = new CopyOnWriteArrayList<>();
    private final StreamPool pool = new StreamPool((name, host, timeouts) -> opened(name), counters, 1, 60_000);
    private final TransportRoutes routes = new TransportRoutes(Transport.AUTO, TIPC_UP, counters);
    private final TaskTransports transports = new TaskTransports(routes, pool, counters, null,
            new AheadStreams(routes, pool));
    private final Counters testCounters = new Counters();
    private final TipcShuffleScheduler<Text, Text> scheduler;
    private int maps;

    AheadStreamsTest() {
        JobConf job = new JobConf(false);
        job.setNumMapTasks(8);
        scheduler = new TipcShuffleScheduler<>(job, mock(TaskStatus.class),
                TaskAttemptID.forName("attempt_1700000000000_0001_r_000000_0"), t -> {
                    throw new AssertionError(t);
                }, new Progress(), counter("shuffled maps"), counter("shuffle bytes"), counter("failed shuffles"));
    }

    @AfterEach
    void close() {
        transports.close();
    }

    @Test
    void eachMapHostGetsOneStreamForItsFirstFetchOnceTheTransportsAreBuiltAndAFetchSaidItsTimeouts() throws Exception {
        PendingTransports pending = new PendingTransports();
        scheduler.tellHostsTo(pending);
        mapDone("10.0.0.7");
        mapDone("10.0.0.8");
        mapDone("10.0.0.8"); // a second map output of a host already known
        pending.built(transports); // hosts known while the TIPC side was being built are told now
        assertEquals(List.of(), openedTo, "nothing opened before a fetch said its timeouts");

        assertEquals(null, pool.reuse(name("10.0.0.7"), TIMEOUTS)); // the first fetch, to the first host
        mapDone("10.0.0.8");
        mapDone("10.0.0.9");
        awaitOpenedAhead(2);
        assertEquals(List.of(name("10.0.0.8"), name("10.0.0.9")), openedTo,
                "one stream per host, none to the host whose fetch began first");
        assertNotNull(pool.reuse(name("10.0.0.8"), TIMEOUTS));
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_AHEAD_USED));
    }

    @Test
    void aHostRoutedOverTcpGetsNone() throws Exception {
        scheduler.tellHostsTo(PendingTransports.of(transports));
        routes.fellBack(routes.route(new URL(baseUrl("10.0.0.7"))), Fallback.CONNECT_FAILED, null);
        assertEquals(null, pool.reuse(name("10.0.0.8"), TIMEOUTS));
        mapDone("10.0.0.7");
        mapDone("10.0.0.9");
        awaitOpenedAhead(1);
        assertEquals(List.of(name("10.0.0.9")), openedTo);
    }

    private void mapDone(String host) {
        scheduler.addKnownMapOutput(host + ":13562", baseUrl(host),
                TaskAttemptID.forName("attempt_1700000000000_0001_m_00000" + maps++ + "_0"));
    }

    /** The URL a host's fetches start with, as the stock scheduler makes it from a map-completion event. */
    private static String baseUrl(String host) {
        return "http://" + host + ":13562/mapOutput?job=" + JOB + "&reduce=0&map=";
    }

    private static ShuffleServiceName name(String host) throws IOException {
        return ShuffleServiceName.of(InetAddress.getByName(host), 13562);
    }

    private void awaitOpenedAhead(long n) throws InterruptedException {
        Await.until(n + " streams opened ahead", () -> reporter.get(TipcShuffleCounter.STREAMS_OPENED_AHEAD) >= n);
    }

    private Counters.Counter counter(String name) {
        return testCounters.findCounter("test", name);
    }

    private ShuffleStream opened(ShuffleServiceName name) {
        openedTo.add(name);
        return new UnusedStream();
    }
}
