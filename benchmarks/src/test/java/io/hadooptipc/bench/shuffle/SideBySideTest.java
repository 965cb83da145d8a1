package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.bench.shuffle.SideBySide.Compared;
import io.hadooptipc.bench.shuffle.SideBySide.Metric;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Measured;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Side;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import java.util.List;
import org.junit.jupiter.api.Test;

class SideBySideTest {
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
        assertEquals(new Compared(200, 200, 0.5), SideBySide.compare(runs, HEAVY, JOB_TIME));
    }

    @Test
    void theRatiosIntervalComesFromThePairedRoundsOnly() {
        List<Measured> runs = List.of(
                run(HEAVY, Side.STOCK, 1, 100), run(HEAVY, Side.OURS, 1, 50),
                run(HEAVY, Side.OURS, 2, 300), run(HEAVY, Side.STOCK, 2, 200),
                run(HEAVY, Side.STOCK, 3, 0), run(HEAVY, Side.OURS, 3, 200),
                run(HEAVY, Side.OURS, 4, 9999));
        // Ratios 0.5 and 1.5 (round 3's stock 0 and round 4's lone run give none): medians of resamples 0.5, 1, 1.5.
        assertEquals(new Stats.Interval(0.5, 1.5), SideBySide.ratioInterval(runs, HEAVY, JOB_TIME, Side.STOCK));
    }

    @Test
    void aRatioToNothingIsNotANumber() {
        List<Measured> runs = List.of(run(HEAVY, Side.STOCK, 1, 0), run(HEAVY, Side.OURS, 1, 5));
        assertEquals(Double.NaN, SideBySide.compare(runs, HEAVY, JOB_TIME).ratio());
    }

    @Test
    void everyMetricHasItsColumnInResultsCsv() {
        List<String> header = List.of(SideBySide.CSV_HEADER.split(","));
        for (Metric metric : SideBySide.METRICS) {
            assertTrue(header.contains(metric.column()), metric.column());
        }
    }

    @Test
    void instructionsAreMachineOnesAndTheMapMachinesSummed() {
        Measured m = counted(Side.STOCK, 4_000_000_000L, 1_500_000_000L, 500_000_000L);
        assertEquals(4000, metric("m1_instructions_millions").value().applyAsDouble(m));
        assertEquals(2000, metric("map_machines_instructions_millions").value().applyAsDouble(m));
    }

    @Test
    void aMetricMeasuredInNoRoundHasNoRow() {
        Metric m1 = metric("m1_instructions_millions");
        List<Measured> uncounted = List.of(run(HEAVY, Side.STOCK, 1, 100), run(HEAVY, Side.OURS, 1, 50));
        assertEquals("", SideBySide.row(uncounted, HEAVY, m1, Side.STOCK));
        List<Measured> counted = List.of(counted(Side.STOCK, 4_000_000_000L, 1), counted(Side.OURS, 3_000_000_000L, 1));
        assertEquals("| " + m1.name() + " (millions) | 4000 | 3000 | 0.75 | n/a |\n", SideBySide.row(counted, HEAVY, m1, Side.STOCK));
    }

    private static Metric metric(String column) {
        return SideBySide.METRICS.stream().filter(m -> m.column().equals(column)).findFirst().orElseThrow();
    }

    private static Measured counted(Side side, long... instructions) {
        return new Measured(HEAVY, side, 1, null, true, 0, List.of(), 0, -1, instructions);
    }

    private static Measured run(Spec spec, Side side, int round, long jobMillis) {
        return new Measured(spec, side, round, null, true, jobMillis, List.of(), 0, -1, new long[0]);
    }
}
