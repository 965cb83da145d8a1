package io.hadooptipc.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.stream.DoubleStream;
import java.util.stream.Stream;

/**
 * What every benchmark reports: medians, and in its output directory results.csv, its plots
 * (drawn with {@link Charts} first) and summary.md, which shows them.
 */
public final class Results {
    private Results() {
    }

    /** The median; NaN for no values (a job run whose history held no attempt of that kind). */
    public static double median(DoubleStream values) {
        double[] v = values.sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
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

    /**
     * Writes {@code csv} to results.csv and to summary.md a summary headed by the benchmark's
     * name and the machine, followed by every plot already saved in {@code out}; prints where the summary is.
     */
    public static void write(Path out, String name, CharSequence csv, String summaryBody) throws IOException {
        write(out, name, csv, Machine.describe(), summaryBody);
    }

    /** {@link #write(Path, String, CharSequence, String)} of results measured elsewhere, on {@code machine}. */
    public static void write(Path out, String name, CharSequence csv, String machine, String summaryBody) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.csv"), csv);
        StringBuilder summary = new StringBuilder("# ").append(name).append("\n\n").append(machine)
                .append("\n").append(summaryBody);
        try (Stream<Path> files = Files.list(out)) {
            files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".png")).sorted()
                    .forEach(png -> summary.append("\n![").append(png).append("](").append(png).append(")\n"));
        }
        Files.writeString(out.resolve("summary.md"), summary);
        // Its path, not its text: a run that rewrites its summary after every pair would repeat it.
        System.out.println(name + ": summary in " + out.resolve("summary.md"));
    }
}
