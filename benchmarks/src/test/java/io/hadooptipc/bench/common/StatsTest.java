package io.hadooptipc.bench.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void bootstrapIntervalOfTheMedianHoldsTheMedianAndStaysWithinTheValues() {
        double[] ratios = {0.71, 0.93, 0.78, 1.12, 0.80, 0.75, 0.88};
        Stats.Interval interval = Stats.medianInterval95(ratios);
        assertTrue(interval.low() >= 0.71 && interval.low() < 0.80, interval.toString());
        assertTrue(interval.high() > 0.80 && interval.high() <= 1.12, interval.toString());
        assertEquals(interval, Stats.medianInterval95(ratios), "a fixed seed: the same values, the same interval");
        assertEquals(new Stats.Interval(0.9, 0.9), Stats.medianInterval95(new double[] {0.9, 0.9, 0.9}));
    }

    @Test
    void noIntervalFromFewerThanTwoValues() {
        assertTrue(Double.isNaN(Stats.medianInterval95(new double[] {0.8}).low()));
        assertEquals("n/a", Stats.medianInterval95(new double[0]).format("%.2f"));
        assertEquals("0.50 to 0.50", Stats.medianInterval95(new double[] {0.5, 0.5}).format("%.2f"));
    }
}
