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

    private static Measured run(Spec spec, Side side, int round, long jobMillis) {
        return new Measured(spec, side, round, null, true, jobMillis, List.of(), 0, -1);
    }
}
