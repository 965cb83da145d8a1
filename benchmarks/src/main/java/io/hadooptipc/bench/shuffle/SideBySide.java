package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.ShuffleComparison;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Measured;
import io.hadooptipc.shuffle.harness.ShuffleComparison.ReduceAttempt;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Side;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Job runs of two sides of the shuffle ({@link ShuffleComparison}'s), compared round by round: the metrics of a run
 * and their columns in results.csv, each run's partner of the same round, medians over rounds, the median of the
 * per-round ratios with its bootstrap interval, and the summary table's row that shows them.
 */
final class SideBySide {
    /**
     * One metric of a job, a base side (stock here) against the other (ours): medians over rounds and the median of the
     * per-round ratios other/base.
     */
    record Compared(double base, double other, double ratio) {
        double of(boolean base) {
            return base ? this.base : other;
        }
    }

    /** A metric per job run, how the summary names it, and its column in results.csv. */
    record Metric(String name, String unit, String column, ToDoubleFunction<Measured> value) {
    }

    static final List<Metric> METRICS = List.of(
            new Metric("shuffle phase, median reducer (wall)", "ms", "shuffle_ms_median",
                    m -> Stats.median(m.reduces(), ReduceAttempt::shuffleMillis)),
            new Metric("shuffle phase CPU, all reducers", "ms", "shuffle_cpu_ms", m -> sum(m, ReduceAttempt::shuffleCpuMillis)),
            new Metric("NodeManager shuffle-serving CPU", "ms", "serving_cpu_ms", Measured::servingCpuMillis),
            new Metric("reduce attempt launch to shuffle end, median (history)", "ms", "launch_to_shuffle_end_ms_median",
                    m -> Stats.median(m.reduces(), ReduceAttempt::launchToShuffleEndMillis)),
            new Metric("reduce task CPU, all reducers (CPU_MILLISECONDS)", "ms", "reduce_cpu_ms",
                    m -> sum(m, ReduceAttempt::cpuMillis)),
            new Metric("job, launch to finish", "ms", "job_ms", Measured::jobMillis),
            new Metric("instructions during the job, machine 1 (reducers, ApplicationMaster, masters)", "millions",
                    "m1_instructions_millions", m -> millionsOf(m, 0, 1)),
            new Metric("instructions during the job, map machines (maps, NodeManager serving)", "millions",
                    "map_machines_instructions_millions", m -> millionsOf(m, 1, Integer.MAX_VALUE)));

    /** results.csv's header: a row per job run, the metrics' columns among them. */
    static final String CSV_HEADER = "round,job,maps,reduces,shuffle,transport,job_ms,shuffle_ms_median,shuffle_cpu_ms,"
            + "serving_cpu_ms,launch_to_shuffle_end_ms_median,reduce_cpu_ms,reduce_shuffle_bytes,tipc_bytes,tcp_bytes,"
            + "tipc_map_outputs,tcp_map_outputs,fallback_requests,cross_machine_tipc_bytes,output_correct,output_identical,"
            + "m1_instructions_millions,map_machines_instructions_millions";

    /**
     * Millions of instructions machines {@code from} to {@code to} (exclusive, 0 is machine 1) executed during the job;
     * NaN where they were not counted.
     */
    static double millionsOf(Measured m, int from, int to) {
        long[] counts = m.machineInstructions();
        return counts.length <= from ? Double.NaN
                : Arrays.stream(counts, from, Math.min(to, counts.length)).sum() / 1e6;
    }

    /** A ratio as the summaries print it: two decimals, or n/a where it could not be taken. */
    static String ratio(double ratio) {
        return Double.isNaN(ratio) ? "n/a" : String.format("%.2f", ratio);
    }

    /** Medians of a metric per side over rounds, and the median of the per-round ratios ours/stock (NaN if stock was 0). */
    static Compared compare(List<Measured> runs, Spec spec, Metric metric) {
        return compare(runs, spec, metric, Side.STOCK);
    }

    /**
     * Medians of a metric over rounds, {@code base}'s and the other side's, and the median of the per-round ratios
     * other/base (NaN if base was 0).
     */
    static Compared compare(List<Measured> runs, Spec spec, Metric metric, Side base) {
        return compare(pairs(runs, spec, metric, base));
    }

    /** Medians of {base, other} pairs, one per round, and the median of the per-round ratios other/base. */
    static Compared compare(List<double[]> rounds) {
        return new Compared(Stats.median(rounds.stream().mapToDouble(r -> r[0])),
                Stats.median(rounds.stream().mapToDouble(r -> r[1])),
                Stats.median(rounds.stream().mapToDouble(r -> r[0] == 0 ? Double.NaN : r[1] / r[0])));
    }

    /** The 95% bootstrap interval of the median per-round ratio other/base; rounds where base was 0 are left out. */
    static Stats.Interval ratioInterval(List<Measured> runs, Spec spec, Metric metric, Side base) {
        return ratioInterval(pairs(runs, spec, metric, base));
    }

    static Stats.Interval ratioInterval(List<double[]> rounds) {
        return Stats.medianInterval95(rounds.stream().filter(r -> r[0] != 0).mapToDouble(r -> r[1] / r[0]).toArray());
    }

    /** A summary table's row: the metric, its medians with {@code base} and the other side, their ratio and its interval. */
    static String row(List<Measured> runs, Spec spec, Metric metric, Side base) {
        return row(metric, pairs(runs, spec, metric, base));
    }

    /** {@link #row(List, Spec, Metric, Side)} of {base, other} pairs, one per round; no row where the metric was not measured. */
    static String row(Metric metric, List<double[]> rounds) {
        if (rounds.stream().allMatch(r -> Double.isNaN(r[0]) && Double.isNaN(r[1]))) {
            return "";
        }
        Compared c = compare(rounds);
        return String.format("| %s (%s) | %.0f | %.0f | %s | %s |%n", metric.name(), metric.unit(), c.base(), c.other(),
                ratio(c.ratio()), ratioInterval(rounds).format("%.2f"));
    }

    /** {base, other} of a metric for every round in which both sides of {@code spec} ran. */
    private static List<double[]> pairs(List<Measured> runs, Spec spec, Metric metric, Side base) {
        List<double[]> rounds = new ArrayList<>();
        for (Measured first : runs) {
            if (first.spec().equals(spec) && first.side() == base) {
                partner(runs, first).ifPresent(other -> rounds.add(new double[]{
                        metric.value().applyAsDouble(first), metric.value().applyAsDouble(other)}));
            }
        }
        return rounds;
    }

    static Optional<Measured> partner(List<Measured> runs, Measured m) {
        return runs.stream().filter(o -> o.spec().equals(m.spec()) && o.round() == m.round() && o.side() != m.side())
                .findFirst();
    }

    static boolean identical(List<Measured> runs, Measured m) {
        return partner(runs, m).map(o -> ShuffleComparison.identical(m.result(), o.result())).orElse(false);
    }

    static long fallbacks(Measured m) {
        return Arrays.stream(TipcShuffleCounter.values()).filter(TipcShuffleCounter::isFallback).mapToLong(m::counter).sum();
    }

    static long total(List<Measured> runs, Enum<?> counter) {
        return runs.stream().mapToLong(m -> m.counter(counter)).sum();
    }

    static double sum(Measured m, ToDoubleFunction<ReduceAttempt> value) {
        return m.reduces().stream().mapToDouble(value).sum();
    }

    static String fmt(double value) {
        return String.format("%.0f", value);
    }

    private SideBySide() {
    }
}
