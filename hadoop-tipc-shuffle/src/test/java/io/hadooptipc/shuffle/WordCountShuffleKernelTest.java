package io.hadooptipc.shuffle;

import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static io.hadooptipc.shuffle.WordCountShuffleTest.assertSameOutput;
import static io.hadooptipc.shuffle.WordCountShuffleTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The word count on a real TIPC kernel (testbed VM): every shuffled byte over TIPC,
 * no fallback, output byte-identical to the stock shuffle's on the same cluster.
 * Smaller than the host run: each task is a JVM under software emulation.
 */
@Tag("tipc-kernel")
class WordCountShuffleKernelTest {
    static final int MAPS = 2;
    static final int REDUCES = 2;
    // C1 only: under emulation the C2 compiler costs task JVMs more than it returns.
    static final Map<String, String> FAST_START = Map.of(
            "mapreduce.map.java.opts", "-Xmx256m -XX:TieredStopAtLevel=1",
            "mapreduce.reduce.java.opts", "-Xmx256m -XX:TieredStopAtLevel=1",
            "yarn.app.mapreduce.am.command-opts", "-Xmx400m -XX:TieredStopAtLevel=1");

    @TempDir
    Path work;

    @Test
    void everyShuffledByteGoesOverTipc() throws Exception {
        Map<String, Integer> counts = MiniShuffleCluster.writeInput(work.resolve("in"), MAPS, 3_000);
        try (MiniShuffleCluster cluster = MiniShuffleCluster.start("tipc-kernel", TipcShuffleHandler.class, 1)) {
            MiniShuffleCluster.Result ours = cluster.wordCount(work.resolve("in"), work.resolve("tipc"),
                    TipcShuffleConsumer.class, REDUCES, FAST_START);
            MiniShuffleCluster.Result stock = cluster.wordCount(work.resolve("in"), work.resolve("stock"),
                    Shuffle.class, REDUCES, FAST_START);

            WordCountShuffleTest.assertCorrect(counts, stock);
            assertSameOutput(stock, ours);
            Counters c = ours.counters();
            long shuffled = c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
            assertTrue(shuffled > 0);
            assertEquals(shuffled, value(c, TipcShuffleCounter.TIPC_BYTES), "every shuffled byte via TIPC");
            assertEquals(MAPS * REDUCES, value(c, TipcShuffleCounter.TIPC_MAP_OUTPUTS));
            assertEquals(0, value(c, TipcShuffleCounter.TCP_BYTES));
            for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
                if (counter.name().startsWith("FALLBACK_")) {
                    assertEquals(0, value(c, counter), counter.name());
                }
            }
            System.out.printf("wordcount over TIPC: REDUCE_SHUFFLE_BYTES=%d TIPC_BYTES=%d TCP_BYTES=%d%n",
                    shuffled, value(c, TipcShuffleCounter.TIPC_BYTES), value(c, TipcShuffleCounter.TCP_BYTES));
        }
    }
}
