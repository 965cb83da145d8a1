package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.CountingReporter;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pool's bookkeeping on its own, with streams that only record whether they were closed. */
class StreamPoolTest {
    private static final Timeouts TIMEOUTS = new Timeouts(1000, 60_000, 60_000);

    private final CountingReporter reporter = new CountingReporter();
    private final List<UnusedStream> opened = new ArrayList<>();
    private final List<Timeouts> openedWith = new ArrayList<>();
    private final StreamPool pool = new StreamPool((name, host, timeouts) -> opened(timeouts), new TransferCounters(reporter),
            1, 60_000);
    private final ShuffleServiceName host;

    StreamPoolTest() throws IOException {
        host = ShuffleServiceName.of(InetAddress.getByName("10.0.0.7"), 13562);
    }

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void aHostKeepsAtMostItsBoundOfIdleStreamsAndTheRestAreClosed() throws IOException {
        BufferedStream first = pool.open(host, "10.0.0.7", TIMEOUTS);
        BufferedStream second = pool.open(host, "10.0.0.7", TIMEOUTS);
        pool.release(host, TIMEOUTS, first, Long.MAX_VALUE);
        pool.release(host, TIMEOUTS, second, Long.MAX_VALUE);
        assertFalse(opened.get(0).closed);
        assertTrue(opened.get(1).closed, "over max-idle-per-host");
        assertSame(first, pool.reuse(host, TIMEOUTS));
        assertNull(pool.reuse(host, TIMEOUTS), "a stream is handed out once");
    }

    @Test
    void aStreamIsReusedOnlyWithTheTimeoutsItWasOpenedWith() throws IOException {
        BufferedStream s = pool.open(host, "10.0.0.7", TIMEOUTS);
        pool.release(host, TIMEOUTS, s, Long.MAX_VALUE);
        assertNull(pool.reuse(host, new Timeouts(1000, 5000, 5000)));
        assertSame(s, pool.reuse(host, TIMEOUTS));
    }

    @Test
    void aStreamReleasedAfterThePoolClosedIsClosed() throws IOException {
        BufferedStream s = pool.open(host, "10.0.0.7", TIMEOUTS);
        pool.close();
        pool.release(host, TIMEOUTS, s, Long.MAX_VALUE);
        assertTrue(opened.get(0).closed);
    }

    @Test
    void badValuesGetClearErrors() {
        Configuration conf = new Configuration(false);
        conf.setInt(TipcShuffleConfig.REUSE_IDLE_TIMEOUT_MS, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StreamPool.of(conf, (name, host, timeouts) -> new UnusedStream(), new TransferCounters(reporter)));
        assertTrue(e.getMessage().contains(TipcShuffleConfig.REUSE_IDLE_TIMEOUT_MS), e.getMessage());
        conf.setInt(TipcShuffleConfig.REUSE_IDLE_TIMEOUT_MS, 100);
        conf.setInt(TipcShuffleConfig.REUSE_MAX_IDLE_PER_HOST, -1);
        e = assertThrows(IllegalArgumentException.class,
                () -> StreamPool.of(conf, (name, host, timeouts) -> new UnusedStream(), new TransferCounters(reporter)));
        assertTrue(e.getMessage().contains(TipcShuffleConfig.REUSE_MAX_IDLE_PER_HOST), e.getMessage());

        conf.setBoolean(TipcShuffleConfig.REUSE_ENABLED, false);
        StreamPool off = StreamPool.of(conf, (name, host, timeouts) -> new UnusedStream(), new TransferCounters(reporter));
        assertFalse(off.keepsStreams(), "reuse off keeps no stream, whatever the bound");
        off.close();
    }

    @Test
    void aStreamOpenedAheadWaitsForTheFirstFetchsTimeoutsAndServesTheHostsFirstFetch() throws Exception {
        ShuffleServiceName other = ShuffleServiceName.of(InetAddress.getByName("10.0.0.8"), 13562);
        Thread ahead = openAhead(host);
        awaitWaiting(ahead);
        assertTrue(opened.isEmpty(), "nothing opened before a fetch said its timeouts");
        assertNull(pool.reuse(other, TIMEOUTS), "the first fetch, to another host");
        ahead.join(10_000);
        assertEquals(List.of(TIMEOUTS), openedWith, "opened with the first fetch's timeouts");
        assertNotNull(pool.reuse(host, TIMEOUTS), "the host's first fetch takes the one stream opened");
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_OPENED_AHEAD));
        assertEquals(1, reporter.get(TipcShuffleCounter.STREAMS_AHEAD_USED));
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_REUSED), "its first request is no reuse");
    }

    @Test
    void noStreamIsOpenedAheadToAHostAFetchHasAskedFor() throws Exception {
        assertNull(pool.reuse(host, TIMEOUTS));
        pool.openAhead(host, "10.0.0.7");
        assertTrue(opened.isEmpty());
        assertEquals(0, reporter.get(TipcShuffleCounter.STREAMS_OPENED_AHEAD));
    }

    @Test
    void anOpenerWaitingForTheFirstFetchReturnsWhenThePoolCloses() throws Exception {
        Thread ahead = openAhead(host);
        awaitWaiting(ahead);
        pool.close();
        ahead.join(10_000);
        assertFalse(ahead.isAlive());
        assertTrue(opened.isEmpty());
    }

    private Thread openAhead(ShuffleServiceName name) {
        Thread t = new Thread(() -> {
            try {
                pool.openAhead(name, "10.0.0.7");
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        }, "opener");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        Await.until("the opener waits", () -> t.getState() == Thread.State.WAITING);
    }

    private UnusedStream opened(Timeouts timeouts) {
        openedWith.add(timeouts);
        return opened();
    }

    private UnusedStream opened() {
        UnusedStream r = new UnusedStream();
        opened.add(r);
        return r;
    }
}
