package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Measured;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Side;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static io.hadooptipc.shuffle.harness.WordCountShuffleTest.assertSameOutput;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The word count on a real TIPC kernel (testbed VM): every shuffled byte over TIPC,
 * no fallback, output byte-identical to the stock shuffle's on the same cluster.
 * Smaller than the host run, and still slow: every daemon and task is a JVM under
 * software emulation (30-50 minutes on a 2-core host), so it is tagged "slow" and
 * left out of bin/test; bin/run runs the same comparison (ShuffleComparison, through
 * benchmarks/shuffle) on more jobs.
 */
@Tag("tipc-kernel")
@Tag("slow")
class WordCountShuffleKernelTest {
    @TempDir
    Path work;

    @Test
    void everyShuffledByteGoesOverTipc() throws Exception {
        List<Measured> runs;
        try (MiniShuffleCluster cluster = MiniShuffleCluster.start("shuffle", TipcShuffleHandler.class, 1)) {
            runs = ShuffleComparison.run(cluster, work,
                    List.of(new ShuffleComparison.Spec(ShuffleJob.WORDCOUNT, 2, 1, 3_000)), 1, m -> { });
        }
        Measured stock = runs.stream().filter(m -> m.side() == Side.STOCK).findFirst().orElseThrow();
        Measured ours = runs.stream().filter(m -> m.side() == Side.OURS).findFirst().orElseThrow();
        assertTrue(stock.correct(), "the stock shuffle's output is the word count of the input");
        assertSameOutput(stock.result(), ours.result());
        long shuffled = ours.counter(TaskCounter.REDUCE_SHUFFLE_BYTES);
        assertTrue(shuffled > 0);
        assertEquals(shuffled, ours.counter(TipcShuffleCounter.TIPC_BYTES), "every shuffled byte via TIPC");
        assertEquals(2, ours.counter(TipcShuffleCounter.TIPC_MAP_OUTPUTS));
        assertEquals(0, ours.counter(TipcShuffleCounter.TCP_BYTES));
        for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
            if (counter.isFallback()) {
                assertEquals(0, ours.counter(counter), counter.name());
            }
        }
    }
}
