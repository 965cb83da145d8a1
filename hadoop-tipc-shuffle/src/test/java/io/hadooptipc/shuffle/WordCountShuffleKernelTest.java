package io.hadooptipc.shuffle;

import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.hadooptipc.shuffle.WordCountShuffleTest.assertCorrect;
import static io.hadooptipc.shuffle.WordCountShuffleTest.assertSameOutput;
import static io.hadooptipc.shuffle.WordCountShuffleTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The word count on a real TIPC kernel (testbed VM): every shuffled byte over TIPC,
 * no fallback, output byte-identical to the stock shuffle's on the same cluster.
 * Smaller than the host run, and still slow: every daemon and task is a JVM under
 * software emulation (30-50 minutes on a 2-core host), so it is tagged "slow" and
 * left out of bin/test; bin/run runs the same comparison (WordCountDemo).
 */
@Tag("tipc-kernel")
@Tag("slow")
class WordCountShuffleKernelTest {
    @TempDir
    Path work;

    @Test
    void everyShuffledByteGoesOverTipc() throws Exception {
        WordCountDemo.Comparison run = WordCountDemo.run(work, 2, 1, 3_000);
        assertCorrect(run.counts(), run.stock());
        assertSameOutput(run.stock(), run.tipc());
        Counters c = run.tipc().counters();
        long shuffled = c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
        assertTrue(shuffled > 0);
        assertEquals(shuffled, value(c, TipcShuffleCounter.TIPC_BYTES), "every shuffled byte via TIPC");
        assertEquals(2, value(c, TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(0, value(c, TipcShuffleCounter.TCP_BYTES));
        for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
            if (counter.name().startsWith("FALLBACK_")) {
                assertEquals(0, value(c, counter), counter.name());
            }
        }
    }
}
