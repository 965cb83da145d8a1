package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Word count on YARN with the TIPC shuffle plugged in on both sides, on a host
 * without AF_TIPC: the output must be byte-identical to the stock shuffle's and the
 * counters must show every byte over TCP with the reason. Also both mixed pairs:
 * stock fetchers against our handler, our fetchers against the stock handler.
 */
class WordCountShuffleTest {
    static final int MAPS = 4;
    static final int REDUCES = 3;

    @TempDir
    static Path work;
    static String expected;

    @BeforeAll
    static void input() throws Exception {
        expected = ShuffleJob.WORDCOUNT.writeInput(work.resolve("in"), MAPS, 20_000);
    }

    @Test
    void ourHandlerServesStockAndTipcFetchersTheSameOutput() throws Exception {
        assumeFalse(Tipc.availability().isAvailable(), "this host has AF_TIPC: WordCountShuffleKernelTest covers it");
        try (MiniShuffleCluster cluster = MiniShuffleCluster.start("tipc-handler", TipcShuffleHandler.class, 2)) {
            ShuffleCluster.Result stock = cluster.run(ShuffleJob.WORDCOUNT, work.resolve("in"), work.resolve("stock-fetch"),
                    Shuffle.class, REDUCES, Map.of());
            ShuffleCluster.Result ours = cluster.run(ShuffleJob.WORDCOUNT, work.resolve("in"), work.resolve("tipc-fetch"),
                    TipcShuffleConsumer.class, REDUCES, Map.of());

            assertCorrect(expected, stock);
            assertSameOutput(stock, ours);
            Counters c = ours.counters();
            long shuffled = c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
            assertTrue(shuffled > 0);
            assertEquals(0, value(c, TipcShuffleCounter.TIPC_BYTES));
            assertEquals(shuffled, value(c, TipcShuffleCounter.TCP_BYTES), "every shuffled byte is counted, via TCP");
            assertEquals(MAPS * REDUCES, value(c, TipcShuffleCounter.TCP_MAP_OUTPUTS));
            assertEquals(value(c, TipcShuffleCounter.TCP_MAP_OUTPUTS) > 0, value(c, TipcShuffleCounter.FALLBACK_TIPC_UNAVAILABLE) > 0,
                    "the fallback reason is counted");
            assertEquals("TIPC Shuffle", c.getGroup(TipcShuffleCounter.class.getName()).getDisplayName());
        }
    }

    /** On HDFS, as on a real cluster: the maps read their input from it. */
    @Test
    void ourFetchersFetchFromTheStockHandler() throws Exception {
        try (MiniShuffleCluster cluster = MiniShuffleCluster.startOnHdfs("stock-handler", ShuffleHandler.class, 2)) {
            ShuffleCluster.Result ours = cluster.run(ShuffleJob.WORDCOUNT, work.resolve("in"), work.resolve("stock-handler"),
                    TipcShuffleConsumer.class, REDUCES, Map.of());
            assertCorrect(expected, ours);
            Counters c = ours.counters();
            assertEquals(c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue(), value(c, TipcShuffleCounter.TCP_BYTES));
            assertTrue(c.findCounter("hdfs", FileSystemCounter.BYTES_READ).getValue() > 0, "the maps read HDFS");
        }
    }

    static long value(Counters c, TipcShuffleCounter counter) {
        return c.findCounter(counter).getValue();
    }

    /** The merged, sorted output equals the word counts computed here from the input. */
    static void assertCorrect(String expected, ShuffleCluster.Result r) {
        assertEquals(expected, r.sortedLines());
    }

    static void assertSameOutput(ShuffleCluster.Result expected, ShuffleCluster.Result actual) {
        assertEquals(expected.parts().keySet(), actual.parts().keySet());
        expected.parts().forEach((name, bytes) -> assertArrayEquals(bytes, actual.parts().get(name), name));
    }
}
