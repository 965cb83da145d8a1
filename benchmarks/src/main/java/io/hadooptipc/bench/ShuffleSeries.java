package io.hadooptipc.bench;

import io.hadooptipc.bench.ShuffleBenchmark.Metric;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One result from a series of {@link ShuffleBenchmark} runs on the testbed cluster, each a session's rounds of the
 * same jobs on the same commit, each in a folder {@code rounds-K-N} of DIR with its own results.csv and summary.md: a
 * full series needs more of the machine than one session has. Writes DIR's results.csv (every stock/ours pair of
 * every session), plot.png (ours/stock per round) and summary.md: per job and metric, medians over all rounds and the
 * median of the per-round ratios ours/stock with its bootstrap interval, and each session's provenance.
 * <p>Arguments: {@code DIR}. Exits 1, writing nothing, if the sessions measured different commits (or one had
 * uncommitted changes), ran different jobs, or measured a round twice.
 */
public final class ShuffleSeries {
    static final String SESSION_PREFIX = "rounds-";
    private static final Pattern COMMIT = Pattern.compile("commit ([0-9a-f]+)( with uncommitted changes)?;");

    /** A job run: a row of a session's results.csv. */
    record Run(String session, Map<String, String> fields) {
        int round() {
            return Integer.parseInt(fields.get("round"));
        }

        String job() {
            return fields.get("job") + "-" + fields.get("maps") + "x" + fields.get("reduces");
        }

        boolean stock() {
            return fields.get("shuffle").equals("stock");
        }

        double value(String column) {
            return Double.parseDouble(fields.get(column));
        }

        long count(String column) {
            return Long.parseLong(fields.get(column));
        }

        boolean flag(String column) {
            return Boolean.parseBoolean(fields.get(column));
        }
    }

    /** A session's folder: its summary's Machine line, the host's load after it, and its job runs. */
    record Session(String name, String machine, String loadAfter, String commit, List<Run> runs) {
        static Session read(Path dir) throws IOException {
            String name = dir.getFileName().toString();
            List<String> summary = Files.readAllLines(dir.resolve("summary.md"));
            String machine = summary.stream().filter(l -> l.startsWith("Machine: ")).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(name + ": its summary.md has no Machine: line"));
            String loadAfter = summary.stream().filter(l -> l.startsWith("Host load average after the run: ")).findFirst()
                    .map(l -> l.substring("Host load average after the run: ".length())).orElse("not recorded.");
            Matcher commit = COMMIT.matcher(machine);
            if (!commit.find()) {
                throw new IllegalArgumentException(name + ": its Machine: line names no commit");
            }
            List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
            if (csv.isEmpty() || !csv.get(0).equals(ShuffleBenchmark.CSV_HEADER)) {
                throw new IllegalArgumentException(name + ": results.csv's header is not ShuffleBenchmark's: "
                        + (csv.isEmpty() ? "empty file" : csv.get(0)));
            }
            String[] header = csv.get(0).split(",");
            List<Run> runs = new ArrayList<>();
            for (String line : csv.subList(1, csv.size())) {
                String[] values = line.split(",", -1);
                if (values.length != header.length) {
                    throw new IllegalArgumentException(name + ": results.csv row with " + values.length + " fields: " + line);
                }
                Map<String, String> fields = new LinkedHashMap<>();
                for (int i = 0; i < header.length; i++) {
                    fields.put(header[i], values[i]);
                }
                runs.add(new Run(name, fields));
            }
            return new Session(name, machine, loadAfter, commit.group(1) + (commit.group(2) == null ? "" : commit.group(2)),
                    runs);
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
        List<Session> sessions = new ArrayList<>();
        try (Stream<Path> folders = Files.list(dir)) {
            for (Path folder : folders.filter(f -> f.getFileName().toString().startsWith(SESSION_PREFIX))
                    .filter(f -> Files.exists(f.resolve("results.csv"))).sorted().toList()) {
                sessions.add(Session.read(folder));
            }
        }
        check(sessions);
        List<Run> runs = sessions.stream().flatMap(s -> s.runs().stream()).toList();
        StringBuilder csv = new StringBuilder("session,").append(ShuffleBenchmark.CSV_HEADER).append('\n');
        runs.forEach(r -> csv.append(r.session()).append(',').append(String.join(",", r.fields().values())).append('\n'));
        try (Stream<Path> files = Files.list(dir)) {  // plots of an earlier series
            for (Path png : files.filter(f -> f.getFileName().toString().endsWith(".png")).toList()) {
                Files.delete(png);
            }
        }
        Charts.save(dir, "plot", plot(runs));
        Results.write(dir, "shuffle", csv, sessions.get(0).machine() + "\n", summary(sessions, runs));
    }

    /** Why the sessions are not one series, if they are not. */
    static void check(List<Session> sessions) {
        if (sessions.isEmpty()) {
            throw new IllegalArgumentException("no " + SESSION_PREFIX + "K-N folder with a results.csv");
        }
        List<String> commits = sessions.stream().map(Session::commit).distinct().toList();
        if (commits.size() > 1 || commits.get(0).contains("uncommitted")) {
            throw new IllegalArgumentException("a series measures one commit, with nothing uncommitted; these sessions measured "
                    + sessions.stream().map(s -> s.name() + ": " + s.commit()).collect(Collectors.joining(", ")));
        }
        List<List<String>> jobs = sessions.stream().map(s -> s.runs().stream().map(Run::job).distinct().sorted().toList())
                .distinct().toList();
        if (jobs.size() > 1) {
            throw new IllegalArgumentException("the sessions ran different jobs: " + jobs);
        }
        Map<String, String> measured = new HashMap<>();
        for (Session s : sessions) {
            for (Run r : s.runs()) {
                String key = r.job() + " round " + r.round() + " " + r.fields().get("shuffle");
                String before = measured.put(key, s.name());
                if (before != null && !before.equals(s.name())) {
                    throw new IllegalArgumentException(key + " was measured twice, in " + before + " and " + s.name());
                }
            }
        }
    }

    /** {stock, ours} of a column for every round of {@code job} in which both ran. */
    static List<double[]> pairs(List<Run> runs, String job, String column) {
        List<double[]> pairs = new ArrayList<>();
        for (Run stock : runs) {
            if (stock.job().equals(job) && stock.stock()) {
                runs.stream().filter(o -> o.job().equals(job) && !o.stock() && o.round() == stock.round()).findFirst()
                        .ifPresent(ours -> pairs.add(new double[]{stock.value(column), ours.value(column)}));
            }
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
                    Results.median(ofJob.stream().mapToDouble(r -> r.value("reduce_shuffle_bytes") / 1024.0 / partitions))));
            s.append("| metric | stock | ours | ours/stock (median of per-round ratios) | 95% interval (bootstrap) |\n"
                    + "|---|---:|---:|---:|---:|\n");
            for (Metric metric : ShuffleBenchmark.METRICS) {
                s.append(ShuffleBenchmark.row(metric, pairs(runs, job, metric.column())));
            }
            s.append("\nours/stock per round:\n\n| round | session | ").append(ShuffleBenchmark.METRICS.stream().limit(3)
                    .map(Metric::name).collect(Collectors.joining(" | "))).append(" |\n|---:|---|---:|---:|---:|\n");
            for (Run stock : ofJob.stream().filter(Run::stock).sorted((a, b) -> Integer.compare(a.round(), b.round())).toList()) {
                ofJob.stream().filter(o -> !o.stock() && o.round() == stock.round()).findFirst().ifPresent(ours ->
                        s.append(String.format("| %d | %s | %s |%n", stock.round(), stock.session(),
                                ShuffleBenchmark.METRICS.stream().limit(3).map(m -> ratio(stock, ours, m.column()))
                                        .collect(Collectors.joining(" | ")))));
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
        s.append("## Sessions\n\n");
        for (Session session : sessions) {
            s.append(String.format("- [%s](%s/summary.md), rounds %s: %s Host load average after it: %s%n", session.name(),
                    session.name(), session.runs().stream().map(Run::round).distinct().sorted().map(String::valueOf)
                            .collect(Collectors.joining(", ")), session.machine().substring("Machine: ".length()),
                    session.loadAfter()));
        }
        return s.toString();
    }

    private static String ratio(Run stock, Run ours, String column) {
        double base = stock.value(column);
        return base == 0 ? "n/a" : String.format("%.2f", ours.value(column) / base);
    }

    private static long sum(List<Run> runs, String column) {
        return runs.stream().mapToLong(r -> r.count(column)).sum();
    }

    /** Ours/stock per round for each job's shuffle phase, reducers' shuffle CPU and serving CPU: the spread medians hide. */
    private static CategoryChart plot(List<Run> runs) {
        CategoryChart chart = Charts.bars("Ours/stock per round (below 1: ours cheaper)", "job and round", "ours / stock");
        List<String> groups = new ArrayList<>();
        List<double[]> rows = new ArrayList<>();
        for (String job : jobs(runs)) {
            List<Integer> rounds = runs.stream().filter(r -> r.job().equals(job)).map(Run::round).distinct().sorted().toList();
            for (int round : rounds) {
                Run stock = find(runs, job, round, true);
                Run ours = find(runs, job, round, false);
                if (stock != null && ours != null) {
                    groups.add(job + " r" + round);
                    rows.add(ShuffleBenchmark.METRICS.stream().limit(3).mapToDouble(m -> stock.value(m.column()) == 0
                            ? 0 : ours.value(m.column()) / stock.value(m.column())).toArray());
                }
            }
        }
        for (int m = 0; m < 3; m++) {
            int metric = m;
            chart.addSeries(ShuffleBenchmark.METRICS.get(m).name(), groups,
                    rows.stream().map(r -> (Number) r[metric]).toList());
        }
        return chart;
    }

    private static Run find(List<Run> runs, String job, int round, boolean stock) {
        return runs.stream().filter(r -> r.job().equals(job) && r.round() == round && r.stock() == stock).findFirst()
                .orElse(null);
    }

    private ShuffleSeries() {
    }
}
