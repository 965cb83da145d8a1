package io.hadooptipc.bench.common;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Random;
import java.util.function.ToDoubleFunction;
import java.util.stream.DoubleStream;

/** The statistics the benchmarks report: medians, bootstrap intervals of a median, percentile rows. */
public final class Stats {
    private Stats() {
    }

    /** The median; NaN for no values (a job run whose history held no attempt of that kind). */
    public static double median(DoubleStream values) {
        double[] v = values.sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The median of {@code value} over {@code items}; NaN for none. */
    public static <T> double median(Collection<T> items, ToDoubleFunction<? super T> value) {
        return median(items.stream().mapToDouble(value));
    }

    /** A confidence interval; NaN ends when there were too few values to tell. */
    public record Interval(double low, double high) {
        public String format(String number) {
            return Double.isNaN(low) ? "n/a" : String.format(number + " to " + number, low, high);
        }
    }

    /**
     * The 95% percentile-bootstrap interval of the median of {@code values}: 10,000 resamples with
     * replacement from a fixed seed, so the same values always give the same interval. Fewer than
     * two values give no interval.
     */
    public static Interval medianInterval95(double[] values) {
        if (values.length < 2) {
            return new Interval(Double.NaN, Double.NaN);
        }
        int resamples = 10_000;
        Random random = new Random(1);
        double[] medians = new double[resamples];
        double[] sample = new double[values.length];
        for (int b = 0; b < resamples; b++) {
            for (int i = 0; i < sample.length; i++) {
                sample[i] = values[random.nextInt(values.length)];
            }
            medians[b] = median(Arrays.stream(sample));
        }
        Arrays.sort(medians);
        return new Interval(medians[resamples / 40], medians[resamples - resamples / 40 - 1]);
    }

    /** A markdown table row: {@code what}, then the minimum, median, 90th percentile and maximum of {@code values}. */
    public static String percentileRow(String what, double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f |", what, sorted[0],
                median(Arrays.stream(sorted)), sorted[(int) Math.ceil(0.9 * sorted.length) - 1], sorted[sorted.length - 1]);
    }
}
