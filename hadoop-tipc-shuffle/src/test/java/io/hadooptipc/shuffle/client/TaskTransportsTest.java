package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.ShuffleWire;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a reduce task's TIPC side takes from the node it runs on. */
class TaskTransportsTest {
    private static final String DECLARED = "declares the TIPC links encrypted by the kernel";

    @TempDir
    Path dir;

    /**
     * Links declared encrypted on a node whose kernel cannot encrypt TIPC: no plain HTTP goes over TIPC. In
     * {@code tipc} mode the fetch fails saying why (in {@code auto} the same reason sends it over HTTPS).
     */
    @Test
    void linksDeclaredEncryptedOnAKernelThatCannotEncryptCarryNothingOverTipc() throws Exception {
        IOException refused = fetchFailure(kallsyms("ffffffffc0a01000 t tipc_sk_rcv\t[tipc]"));
        assertTrue(refused.getMessage().contains(DECLARED), refused.getMessage());
    }

    /** Control: where the kernel can encrypt, the declaration stands and only TIPC's own availability decides. */
    @Test
    void linksDeclaredEncryptedOnAKernelThatCanEncryptAreLeftToTipcsAvailability() throws Exception {
        IOException failure = fetchFailure(kallsyms("ffffffffc0a02000 t tipc_crypto_rcv\t[tipc]"));
        assertFalse(failure.getMessage().contains(DECLARED), failure.getMessage());
    }

    /** A fetch in {@code tipc} mode with links declared encrypted; this host has no AF_TIPC, so it always fails. */
    private IOException fetchFailure(Path kallsyms) throws Exception {
        JobConf job = new JobConf(false);
        job.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true);
        job.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, true);
        job.set(TipcShuffleConfig.TRANSPORT, "tipc");
        try (TaskTransports transports = TaskTransports.start(job, new TransferCounters(new CountingReporter()),
                null, kallsyms)) {
            URL url = new URL("http", "127.0.0.1", 13562, ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0)));
            HttpURLConnection c = transports.open(url, u -> (HttpURLConnection) u.openConnection(),
                    ShuffleWire.key(ShuffleWire.JOB));
            return assertThrows(IOException.class, c::connect);
        }
    }

    private Path kallsyms(String line) throws IOException {
        return Files.writeString(dir.resolve("kallsyms"), line + "\n");
    }
}
