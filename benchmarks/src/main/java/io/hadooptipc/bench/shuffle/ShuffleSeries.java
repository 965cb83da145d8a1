package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.bench.common.Series;
import io.hadooptipc.bench.common.Series.Session;
import io.hadooptipc.bench.shuffle.SideBySide.Metric;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One result from a series of {@link ShuffleBenchmark} runs on the testbed cluster, each a session's rounds of the
 * same jobs on the same commit, each in a folder {@code rounds-K-N} of DIR with its own results.csv and summary.md: a
 * full series needs more of the machine than one session has. Writes DIR's results.csv (every stock/ours pair of
 * every session), plot.png (ours/stock per round) and summary.md: per job and metric, medians over all rounds and the
 * median of the per-round ratios ours/stock with its bootstrap interval, the same with the order balanced (who went
 * first), and each session's provenance.
 * <p>Arguments: {@code DIR}. Exits 1, writing nothing, if the sessions measured different commits (or one had
 * uncommitted changes), ran different jobs, or measured a round twice.
 */
public final class ShuffleSeries {
    /** The metrics whose per-round ratios the summary and the plot show: shuffle phase, its CPU, serving CPU. */
    private static final List<Metric> PER_ROUND = SideBySide.METRICS.subList(0, 3);

    /** A job run: a row of a session's results.csv, which lists runs in the order they ran. */
    record Run(String session, int row, Map<String, String> fields) {
        int round() {
            return Integer.parseInt(fields.get("round"));
        }

        String job() {
            return fields.get("job") + "-" + fields.get("maps") + "x" + fields.get("reduces");
        }

        boolean stock() {
            return fields.get("shuffle").equals("stock");
        }

        /** A column's figure; NaN for -1, which results.csv writes where a figure was not measured. */
        double value(String column) {
            double value = Double.parseDouble(fields.get(column));
            return value < 0 ? Double.NaN : value;
        }

        long count(String column) {
            return Long.parseLong(fields.get(column));
        }

        boolean flag(String column) {
            return Boolean.parseBoolean(fields.get(column));
        }
    }

    public static void main(String[] args) throws IOException {
        try {
            write(Path.of(args[0]));
        } catch (IllegalArgumentException e) {
            System.err.println("shuffle series: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Joins DIR's sessions into DIR's results, or says why they cannot be joined. */
    static void write(Path dir) throws IOException {
        List<Session> sessions = Series.read(dir, SideBySide.CSV_HEADER,
                row -> row.get("job") + "-" + row.get("maps") + "x" + row.get("reduces") + " round " + row.get("round")
                        + " " + row.get("shuffle"));
        List<List<String>> jobs = sessions.stream().map(s -> runs(s).stream().map(Run::job).distinct().sorted().toList())
                .distinct().toList();
        if (jobs.size() > 1) {
            throw new IllegalArgumentException("the sessions ran different jobs: " + jobs);
        }
        List<Run> runs = sessions.stream().flatMap(s -> runs(s).stream()).toList();
        StringBuilder csv = new StringBuilder("session,").append(SideBySide.CSV_HEADER).append('\n');
        runs.forEach(r -> csv.append(r.session()).append(',').append(String.join(",", r.fields().values())).append('\n'));
        Series.deletePlots(dir);
        Charts.save(dir, "plot", plot(runs));
        Results.write(dir, "shuffle", csv, sessions.get(0).machine() + "\n", summary(sessions, runs));
    }

    /** A session's job runs, in the order they ran. */
    private static List<Run> runs(Session session) {
        List<Run> runs = new ArrayList<>();
        for (Map<String, String> row : session.rows()) {
            runs.add(new Run(session.name(), runs.size(), row));
        }
        return runs;
    }

    /** A round of a job in which both sides ran. */
    record Pair(Run stock, Run ours) {
        /** Ours/stock of a column; NaN if stock's was 0. */
        double ratio(String column) {
            double base = stock.value(column);
            return base == 0 ? Double.NaN : ours.value(column) / base;
        }

        boolean stockFirst() {
            return stock.row() < ours.row();
        }
    }

    /**
     * Ours/stock of a column with the order balanced: the geometric mean of the k-th round in which stock went first
     * and the k-th in which ours did, for every k both orders have; going first or second then weighs on both sides
     * alike. One value per such pair of rounds, in round order.
     */
    static double[] balanced(List<Pair> pairs, String column) {
        List<Pair> stockFirst = pairs.stream().filter(Pair::stockFirst).toList();
        List<Pair> oursFirst = pairs.stream().filter(p -> !p.stockFirst()).toList();
        double[] balanced = new double[Math.min(stockFirst.size(), oursFirst.size())];
        for (int k = 0; k < balanced.length; k++) {
            balanced[k] = Math.sqrt(stockFirst.get(k).ratio(column) * oursFirst.get(k).ratio(column));
        }
        return balanced;
    }

    /** The median of ours/stock in the rounds in which {@code stockFirst} says who went first. */
    private static String byOrder(List<Pair> pairs, String column, boolean stockFirst) {
        return SideBySide.ratio(Stats.median(pairs.stream().filter(p -> p.stockFirst() == stockFirst)
                .mapToDouble(p -> p.ratio(column)).filter(r -> !Double.isNaN(r))));
    }

    /** The rounds of {@code job} in which both sides ran, in round order. */
    static List<Pair> pairs(List<Run> runs, String job) {
        List<Pair> pairs = new ArrayList<>();
        for (Run stock : runs.stream().filter(r -> r.job().equals(job) && r.stock())
                .sorted((a, b) -> Integer.compare(a.round(), b.round())).toList()) {
            runs.stream().filter(o -> o.job().equals(job) && !o.stock() && o.round() == stock.round()).findFirst()
                    .ifPresent(ours -> pairs.add(new Pair(stock, ours)));
        }
        return pairs;
    }

    private static List<String> jobs(List<Run> runs) {
        return runs.stream().map(Run::job).distinct().toList();
    }

    private static String summary(List<Session> sessions, List<Run> runs) {
        int rounds = (int) runs.stream().map(Run::round).distinct().count();
        StringBuilder s = new StringBuilder(String.format("The stock shuffle against ours on the testbed cluster: %d round%s "
                        + "measured in %d session%s, all on commit %s, the jobs' rounds in ABBA order across sessions (the side "
                        + "that goes first alternates from job to job and round to round). Each session's summary describes "
                        + "the cluster and the jobs, and has that session's own tables: %s.%n%n",
                rounds, rounds == 1 ? "" : "s", sessions.size(), sessions.size() == 1 ? "" : "s", sessions.get(0).commit(),
                sessions.stream().map(x -> "[" + x.name() + "](" + x.name() + "/summary.md)").collect(Collectors.joining(", "))));
        for (String job : jobs(runs)) {
            List<Run> ofJob = runs.stream().filter(r -> r.job().equals(job)).toList();
            Run any = ofJob.get(0);
            long partitions = any.count("maps") * any.count("reduces");
            s.append(String.format("## %s: %d partitions of %.1f KB on average%n%n", job, partitions,
                    Stats.median(ofJob.stream().mapToDouble(r -> r.value("reduce_shuffle_bytes") / 1024.0 / partitions))));
            s.append("| metric | stock | ours | ours/stock (median of per-round ratios) | 95% interval (bootstrap) |\n"
                    + "|---|---:|---:|---:|---:|\n");
            List<Pair> pairs = pairs(runs, job);
            for (Metric metric : SideBySide.METRICS) {
                s.append(SideBySide.row(metric, pairs.stream()
                        .map(p -> new double[]{p.stock().value(metric.column()), p.ours().value(metric.column())}).toList()));
            }
            s.append("\nours/stock per round:\n\n| round | first | session | ").append(PER_ROUND.stream()
                    .map(Metric::name).collect(Collectors.joining(" | "))).append(" |\n|---:|---|---|---:|---:|---:|\n");
            for (Pair p : pairs) {
                s.append(String.format("| %d | %s | %s | %s |%n", p.stock().round(), p.stockFirst() ? "stock" : "ours",
                        p.stock().session(), PER_ROUND.stream().map(m -> SideBySide.ratio(p.ratio(m.column())))
                                .collect(Collectors.joining(" | "))));
            }
            s.append(String.format("%nOrder balanced: ours/stock over the rounds in which stock went first and over those in"
                    + " which ours did (medians), and the geometric mean of the k-th round of each order (pairs of rounds:"
                    + " %d), its median with a bootstrap interval.%n%n| metric | stock first | ours first |"
                    + " balanced (median) | 95%% interval (bootstrap) |%n|---|---:|---:|---:|---:|%n",
                    balanced(pairs, PER_ROUND.get(0).column()).length));
            for (Metric metric : PER_ROUND) {
                double[] balanced = balanced(pairs, metric.column());
                s.append(String.format("| %s | %s | %s | %s | %s |%n", metric.name(), byOrder(pairs, metric.column(), true),
                        byOrder(pairs, metric.column(), false), SideBySide.ratio(Stats.median(Arrays.stream(balanced))),
                        Stats.medianInterval95(balanced).format("%.2f")));
            }
            List<Run> ours = ofJob.stream().filter(r -> !r.stock()).toList();
            s.append(String.format("%nOurs over all rounds: %d of %d shuffled bytes over TIPC, %d over TCP; %d map outputs via "
                            + "TIPC, %d via TCP; %d fallback requests; %d bytes of TIPC frames crossed machines (the stock "
                            + "runs: %d). Outputs byte-identical to the stock shuffle's in every round: %s; equal to the "
                            + "expected output: %s.%n%n",
                    sum(ours, "tipc_bytes"), sum(ours, "reduce_shuffle_bytes"), sum(ours, "tcp_bytes"),
                    sum(ours, "tipc_map_outputs"), sum(ours, "tcp_map_outputs"), sum(ours, "fallback_requests"),
                    sum(ours, "cross_machine_tipc_bytes"), sum(ofJob.stream().filter(Run::stock).toList(), "cross_machine_tipc_bytes"),
                    ofJob.stream().allMatch(r -> r.flag("output_identical")) ? "yes" : "**NO**",
                    ofJob.stream().allMatch(r -> r.flag("output_correct")) ? "yes" : "**NO**"));
        }
        s.append(Series.sessions(sessions, session -> runs(session).stream().map(Run::round).distinct().sorted()
                .map(String::valueOf).collect(Collectors.joining(", "))));
        return s.toString();
    }

    private static long sum(List<Run> runs, String column) {
        return runs.stream().mapToLong(r -> r.count(column)).sum();
    }

    /** Ours/stock per round for each job's shuffle phase, reducers' shuffle CPU and serving CPU: the spread medians hide. */
    private static CategoryChart plot(List<Run> runs) {
        CategoryChart chart = Charts.bars("Ours/stock per round (below 1: ours cheaper)", "job and round", "ours / stock");
        List<Pair> pairs = jobs(runs).stream().flatMap(job -> pairs(runs, job).stream()).toList();
        List<String> groups = pairs.stream().map(p -> p.stock().job() + " r" + p.stock().round()).toList();
        for (Metric metric : PER_ROUND) {
            chart.addSeries(metric.name(), groups, pairs.stream().map(p -> p.ratio(metric.column()))
                    .map(r -> (Number) (Double.isNaN(r) ? 0 : r)).toList());
        }
        return chart;
    }

    private ShuffleSeries() {
    }
}
