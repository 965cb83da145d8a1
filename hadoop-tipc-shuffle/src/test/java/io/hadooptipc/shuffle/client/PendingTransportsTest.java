package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.CountingReporter;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The task's TIPC side, built beside the fetchers: on the host, without AF_TIPC, as a task there builds it. */
class PendingTransportsTest {
    private final CountingReporter reporter = new CountingReporter();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    @Test
    void aFetcherGetsTheTransportsOnceBuiltAndTheCounterGroupExistsBeforeAnyFetch() throws Exception {
        PendingTransports pending = PendingTransports.start(new JobConf(false), reporter, failures::add);
        TaskTransports built = pending.get();
        assertNotNull(built);
        assertTrue(reporter.counters.getGroupNames().iterator().hasNext(), "a counter group made while building");
        assertEquals(List.of(), failures);
        pending.close();
    }

    @Test
    void transportsThatCannotBeBuiltFailTheTaskAndLeaveFetchersTheStockConnection() throws Exception {
        JobConf job = new JobConf(false);
        job.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true); // TLS over TIPC, with SSL client settings that do not load
        job.set(SSLFactory.SSL_CLIENT_CONF_KEY, "tipc-shuffle-test-no-such-ssl.xml"); // so the job's own settings count
        job.set("ssl.client.truststore.location", "/no-such-dir/truststore.p12");
        job.set("ssl.client.truststore.password", "unused");
        job.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, false);
        PendingTransports pending = PendingTransports.start(job, reporter, failures::add);
        assertNull(pending.get(), "no transports: a fetcher takes the stock connection");
        assertEquals(1, failures.size(), "the task is told: " + failures);
        assertTrue(String.valueOf(failures.get(0)).contains("truststore.p12"), "names what failed: " + failures.get(0));
        pending.close();
    }
}
