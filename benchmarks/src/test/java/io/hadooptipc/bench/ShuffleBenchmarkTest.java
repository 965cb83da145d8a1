package io.hadooptipc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.ShuffleBenchmark.Compared;
import io.hadooptipc.bench.ShuffleBenchmark.Metric;
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
    static final Spec HEAVY = new Spec(ShuffleJob.SHUFFLE_HEAVY, 2, 8, 500);
    static final Metric JOB_TIME = new Metric("job", "ms", "job_ms", Measured::jobMillis);

    @Test
    void comparesEachRoundWithItselfThenTakesMedians() {
        List<Measured> runs = List.of(
                run(HEAVY, Side.STOCK, 1, 100), run(HEAVY, Side.OURS, 1, 50),
                run(HEAVY, Side.OURS, 2, 300), run(HEAVY, Side.STOCK, 2, 200),
                run(HEAVY, Side.STOCK, 3, 400), run(HEAVY, Side.OURS, 3, 200),
                // another job and an unpaired run take no part
                run(new Spec(ShuffleJob.WORDCOUNT, 2, 1, 10), Side.OURS, 1, 9999), run(HEAVY, Side.OURS, 4, 9999));

        // Ratios 0.5, 1.5, 0.5: their median, not the ratio of the medians (200 / 200).
        assertEquals(new Compared(200, 200, 0.5), ShuffleBenchmark.compare(runs, HEAVY, JOB_TIME));
    }

    @Test
    void theRatiosIntervalComesFromThePairedRoundsOnly() {
        List<Measured> runs = List.of(
                run(HEAVY, Side.STOCK, 1, 100), run(HEAVY, Side.OURS, 1, 50),
                run(HEAVY, Side.OURS, 2, 300), run(HEAVY, Side.STOCK, 2, 200),
                run(HEAVY, Side.STOCK, 3, 0), run(HEAVY, Side.OURS, 3, 200),
                run(HEAVY, Side.OURS, 4, 9999));
        // Ratios 0.5 and 1.5 (round 3's stock 0 and round 4's lone run give none): medians of resamples 0.5, 1, 1.5.
        assertEquals(new Results.Interval(0.5, 1.5), ShuffleBenchmark.ratioInterval(runs, HEAVY, JOB_TIME, Side.STOCK));
    }

    @Test
    void aRatioToNothingIsNotANumber() {
        List<Measured> runs = List.of(run(HEAVY, Side.STOCK, 1, 0), run(HEAVY, Side.OURS, 1, 5));
        assertEquals(Double.NaN, ShuffleBenchmark.compare(runs, HEAVY, JOB_TIME).ratio());
    }

    @Test
    void namesTheTransportOurBytesTook() {
        assertEquals("tipc", ShuffleBenchmark.transport(shuffled(Side.OURS, 1000, 1000, 0)));
        assertEquals("tcp-fallback", ShuffleBenchmark.transport(shuffled(Side.OURS, 1000, 0, 1000)));
        assertEquals("mixed", ShuffleBenchmark.transport(shuffled(Side.OURS, 1000, 400, 600)));
        assertEquals("tcp", ShuffleBenchmark.transport(shuffled(Side.STOCK, 1000, 0, 0)));
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
    void parsesJobSpecs() {
        assertEquals(HEAVY, ShuffleBenchmark.spec("shuffle-heavy:2:8:500"));
        assertThrows(IllegalArgumentException.class, () -> ShuffleBenchmark.spec("shuffle-heavy:2:8"));
        assertThrows(IllegalArgumentException.class, () -> ShuffleBenchmark.spec("terasort:2:8:500"));
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

    @Test
    void everyMetricHasItsColumnInResultsCsv() {
        List<String> header = List.of(ShuffleBenchmark.CSV_HEADER.split(","));
        for (Metric metric : ShuffleBenchmark.METRICS) {
            assertTrue(header.contains(metric.column()), metric.column());
        }
    }

    private static Measured run(Spec spec, Side side, int round, long jobMillis) {
        return new Measured(spec, side, round, null, true, jobMillis, List.of(), 0, -1);
    }

    private static Measured crossed(Side side, long tipcFrameBytes) {
        Measured m = shuffled(side, 1000, side == Side.OURS ? 1000 : 0, 0);
        return new Measured(m.spec(), side, 1, m.result(), true, 0, List.of(), 0, tipcFrameBytes);
    }

    private static Measured shuffled(Side side, long total, long tipc, long tcp) {
        Counters counters = new Counters();
        counters.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).setValue(total);
        counters.findCounter(TipcShuffleCounter.TIPC_BYTES).setValue(tipc);
        counters.findCounter(TipcShuffleCounter.TCP_BYTES).setValue(tcp);
        return new Measured(HEAVY, side, 1, new ShuffleCluster.Result(null, Map.of(), counters), true, 0, List.of(), 0, -1);
    }
}
