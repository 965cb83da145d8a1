package io.hadooptipc.bench.shuffle;

import static io.hadooptipc.bench.shuffle.SideBySideTest.HEAVY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.ShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Measured;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Side;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.junit.jupiter.api.Test;

class ShuffleBenchmarkTest {
    private static final Spec WORDCOUNT = new Spec(ShuffleJob.WORDCOUNT, 2, 1, 80);

    @Test
    void namesTheTransportOurBytesTook() {
        assertEquals("tipc", ShuffleBenchmark.transport(shuffled(Side.OURS, 1000, 1000, 0)));
        assertEquals("tcp-fallback", ShuffleBenchmark.transport(shuffled(Side.OURS, 1000, 0, 1000)));
        assertEquals("mixed", ShuffleBenchmark.transport(shuffled(Side.OURS, 1000, 400, 600)));
        assertEquals("tcp", ShuffleBenchmark.transport(shuffled(Side.STOCK, 1000, 0, 0)));
        Measured largeOverTcp = shuffled(Side.OURS, 1000, 100, 900);
        largeOverTcp.result().counters().findCounter(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS).setValue(3);
        assertEquals("tipc+tcp-for-large", ShuffleBenchmark.transport(largeOverTcp));
        largeOverTcp.result().counters().findCounter(TipcShuffleCounter.FALLBACK_CONNECT_FAILED).setValue(1);
        assertEquals("mixed", ShuffleBenchmark.transport(largeOverTcp), "a fallback beside the choice is no choice");
    }

    @Test
    void otherIslandsOverTcpAreAChoiceOnlyBesideTipc() {
        Measured islands = shuffled(Side.OURS, 1200, 400, 800);
        islands.result().counters().findCounter(TipcShuffleCounter.TCP_OTHER_ISLAND).setValue(4);
        assertEquals("tipc+tcp-other-island", ShuffleBenchmark.transport(islands));
        Measured noneOverTipc = shuffled(Side.OURS, 1200, 0, 1200);
        noneOverTipc.result().counters().findCounter(TipcShuffleCounter.TCP_OTHER_ISLAND).setValue(4);
        assertEquals("tcp-fallback", ShuffleBenchmark.transport(noneOverTipc), "its own island's map host was not reached over TIPC");
        islands.result().counters().findCounter(TipcShuffleCounter.FALLBACK_NOT_PUBLISHED).setValue(1);
        assertEquals("mixed", ShuffleBenchmark.transport(islands), "a fallback beside the choice is no choice");
    }

    @Test
    void theVerdictSaysWhatCrossedMachinesAndWhetherOutputsMatch() {
        List<Measured> acrossMachines = List.of(crossed(Side.STOCK, 40), crossed(Side.OURS, 1_040));
        String verdict = ShuffleBenchmark.verdict(acrossMachines, true);
        assertTrue(verdict.contains("our shuffle: 1000 bytes in 0 map outputs via TIPC, 0 bytes in 0 map outputs via TCP"), verdict);
        assertTrue(verdict.contains("cross-machine TIPC bytes: 1040 (ours), 40 (stock)"), verdict);
        assertTrue(verdict.endsWith("output identical to stock: yes\n"), verdict);
        String oneMachine = ShuffleBenchmark.verdict(List.of(shuffled(Side.OURS, 1000, 1000, 0)), false);
        assertFalse(oneMachine.contains("cross-machine"), oneMachine);
        assertTrue(oneMachine.endsWith("output identical to stock: no\n"), oneMachine);
    }

    @Test
    void theVerdictGivesTheShareOfOurBytesOverEachTransportPerJob() {
        Measured wordcount = shuffled(WORDCOUNT, Side.OURS, 1, 6_000, 6_000, 0);
        Measured heavy = shuffled(HEAVY, Side.OURS, 1, 20_480, 19_000, 1_480);
        String verdict = ShuffleBenchmark.verdict(List.of(shuffled(WORDCOUNT, Side.STOCK, 1, 6_000, 0, 0), wordcount,
                shuffled(HEAVY, Side.STOCK, 1, 20_480, 0, 0), heavy), true);
        assertTrue(verdict.contains("share of our shuffled bytes: 94% over TIPC, 6% over HTTP/TCP\n"), verdict);
        assertTrue(verdict.contains("wordcount-2x1: 2 partitions of 2.9 KB on average, 100% of ours over TIPC; ours/stock:"), verdict);
        assertTrue(verdict.contains("shuffle-heavy-2x8: 16 partitions of 1.3 KB on average, 93% of ours over TIPC; ours/stock:"),
                verdict);
        assertEquals("99%", ShuffleBenchmark.percent(999, 1000), "100% only when all bytes went that way");
        assertEquals("1%", ShuffleBenchmark.percent(1, 1000), "0% only when none did");
    }

    @Test
    void theVerdictSaysASinglePairIsNoMeasurement() {
        List<Measured> onePair = List.of(shuffled(HEAVY, Side.STOCK, 1, 1000, 0, 0), shuffled(HEAVY, Side.OURS, 1, 1000, 1000, 0));
        String verdict = ShuffleBenchmark.verdict(onePair, true);
        assertTrue(verdict.contains("\n" + ShuffleBenchmark.ONE_PAIR + "\noutput identical to stock: yes\n"), verdict);
        assertTrue(ShuffleBenchmark.ONE_PAIR.contains("benchmarks/results/shuffle-incast"), ShuffleBenchmark.ONE_PAIR);
        List<Measured> rounds = List.of(onePair.get(0), onePair.get(1), shuffled(HEAVY, Side.OURS, 2, 1000, 1000, 0),
                shuffled(HEAVY, Side.STOCK, 2, 1000, 0, 0));
        assertFalse(ShuffleBenchmark.verdict(rounds, true).contains(ShuffleBenchmark.ONE_PAIR), "rounds are a measurement");
    }

    @Test
    void parsesRoundsAsACountOrARange() {
        assertEquals(new ShuffleBenchmark.Rounds(1, 5), ShuffleBenchmark.Rounds.parse("5"));
        assertEquals(new ShuffleBenchmark.Rounds(3, 4), ShuffleBenchmark.Rounds.parse("3-4"));
        assertEquals("5 rounds", ShuffleBenchmark.Rounds.parse("5").toString());
        assertEquals("1 round", ShuffleBenchmark.Rounds.parse("1").toString());
        assertEquals("rounds 3 to 4", ShuffleBenchmark.Rounds.parse("3-4").toString());
        assertEquals(2, ShuffleBenchmark.Rounds.parse("3-4").count());
        assertThrows(IllegalArgumentException.class, () -> ShuffleBenchmark.Rounds.parse("4-3"));
        assertThrows(IllegalArgumentException.class, () -> ShuffleBenchmark.Rounds.parse("0-2"));
        assertThrows(IllegalArgumentException.class, () -> ShuffleBenchmark.Rounds.parse("1-2-3"));
    }

    private static Measured crossed(Side side, long tipcFrameBytes) {
        Measured m = shuffled(side, 1000, side == Side.OURS ? 1000 : 0, 0);
        return new Measured(m.spec(), side, 1, m.result(), true, 0, List.of(), 0, tipcFrameBytes, new long[0]);
    }

    private static Measured shuffled(Side side, long total, long tipc, long tcp) {
        return shuffled(HEAVY, side, 1, total, tipc, tcp);
    }

    private static Measured shuffled(Spec spec, Side side, int round, long total, long tipc, long tcp) {
        Counters counters = new Counters();
        counters.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).setValue(total);
        counters.findCounter(TipcShuffleCounter.TIPC_BYTES).setValue(tipc);
        counters.findCounter(TipcShuffleCounter.TCP_BYTES).setValue(tcp);
        return new Measured(spec, side, round, new ShuffleCluster.Result(null, Map.of(), counters), true, 0, List.of(), 0, -1, new long[0]);
    }
}
