package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Machine;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.knowm.xchart.CategoryChart;

/**
 * Where a reducer's shuffle phase goes, read from the container logs a cluster kept: each reduce
 * container's {@code syslog.shuffle} (the stock shuffle's own log, written by Hadoop's container
 * log4j set-up) for the stages, and its {@code syslog} (the task's final counters) for the side
 * and the number of map outputs. Both sides log the same lines, since our fetcher is a subclass
 * of stock's {@code Fetcher}; a reducer is ours when its counters show map outputs fetched via TIPC.
 */
final class ShuffleTimeline {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS", Locale.ROOT);
    private static final Pattern TIPC_MAP_OUTPUTS = Pattern.compile("Map outputs fetched via TIPC=(\\d+)");
    private static final Pattern SHUFFLED_MAPS = Pattern.compile("Shuffled Maps =(\\d+)");

    /** A stage: what the summary calls it, its column in results.csv, and its length in a reducer's log. */
    record Stage(String name, String column, ToLongFunction<Reducer> millis) {
    }

    static final List<Stage> STAGES = List.of(
            new Stage("consumer start to the first map-completion events", "to_events_ms", r -> r.events - r.start),
            new Stage("events to the first fetch", "to_first_fetch_ms", r -> r.firstFetch - r.events),
            new Stage("first fetch to the last host freed", "fetching_ms", r -> r.lastFreed - r.firstFetch),
            new Stage("last host freed to the final merge", "to_final_merge_ms", r -> r.finalMerge - r.lastFreed),
            new Stage("final merge", "final_merge_ms", r -> r.end - r.finalMerge),
            new Stage("shuffle phase (consumer start to last line)", "total_ms", r -> r.end - r.start));

    /**
     * One reduce attempt's log: instants in milliseconds of its consumer's start (the merge
     * manager's first line), the first map-completion events, the first fetch, the last host
     * freed, the final merge called and the log's last line.
     */
    record Reducer(String application, String container, boolean ours, int maps,
                   long start, long events, long firstFetch, long lastFreed, long finalMerge, long end) {
    }

    private ShuffleTimeline() {
    }

    /** Reads one reduce container's logs; a log that lacks a stage's line is an error naming the line. */
    static Reducer read(String application, String container, List<String> shuffleLog, List<String> taskLog) {
        long start = -1, events = -1, firstFetch = -1, lastFreed = -1, finalMerge = -1, end = -1;
        for (String line : shuffleLog) {
            long t = instant(line);
            if (t < 0) {
                continue;
            }
            if (start < 0 && line.contains("MergerManager: ")) {
                start = t;
            } else if (events < 0 && line.contains(" new map-outputs")) {
                events = t;
            } else if (firstFetch < 0 && line.contains(" about to shuffle output of map ")) {
                firstFetch = t;
            } else if (line.contains(" freed by fetcher#")) {
                lastFreed = t;
            } else if (line.contains("finalMerge called")) {
                finalMerge = t;
            }
            end = t;
        }
        require(start, container, "syslog.shuffle", "\"MergerManager:\" line (the merge manager's start)");
        require(events, container, "syslog.shuffle", "\"Got N new map-outputs\" line");
        require(firstFetch, container, "syslog.shuffle", "\"about to shuffle output of map\" line");
        require(lastFreed, container, "syslog.shuffle", "\"freed by fetcher#\" line");
        require(finalMerge, container, "syslog.shuffle", "\"finalMerge called\" line");
        String counters = String.join("\n", taskLog);
        long maps = counter(SHUFFLED_MAPS, counters, -1);
        require(maps, container, "syslog", "\"Shuffled Maps =\" counter (the task's final counters)");
        return new Reducer(application, container, counter(TIPC_MAP_OUTPUTS, counters, 0) > 0, (int) maps,
                start, events, firstFetch, lastFreed, finalMerge, end);
    }

    /** Every reduce container under {@code containers}, at any depth: each directory holding a syslog.shuffle, named by its container and application. */
    static List<Reducer> readAll(Path containers) throws IOException {
        try (Stream<Path> logs = Files.find(containers, Integer.MAX_VALUE, (p, a) -> p.getFileName().toString().equals("syslog.shuffle"))) {
            return logs.sorted().map(log -> {
                Path container = log.getParent();
                try {
                    return read(container.getParent().getFileName().toString(), container.getFileName().toString(),
                            Files.readAllLines(log), Files.readAllLines(container.resolve("syslog")));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
    }

    /** Args: a containers directory, the summary.md of the run that wrote its logs, and the output directory. */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: ShuffleTimeline CONTAINERS-DIR RUN-SUMMARY.md OUT-DIR");
        }
        Path containers = Path.of(args[0]);
        Path runSummary = Path.of(args[1]);
        Path out = Path.of(args[2]);
        List<Reducer> reducers = readAll(containers);
        if (reducers.isEmpty()) {
            throw new IllegalArgumentException("no reduce container (syslog.shuffle) under " + containers);
        }
        String machine = Machine.lineOf(Files.readAllLines(runSummary))
                .orElseThrow(() -> new IllegalArgumentException(runSummary + " has no Machine: line"));
        Map<Integer, List<Reducer>> byMaps = reducers.stream()
                .collect(Collectors.groupingBy(Reducer::maps, TreeMap::new, Collectors.toList()));
        StringBuilder body = new StringBuilder(String.format(Locale.ROOT,
                "%nFrom the container logs of the run summarized in `%s`: %d reduce attempts in %d jobs. "
                        + "Per stage, the median over the reducers of each side (milliseconds, from the log lines' "
                        + "timestamps) and ours/stock.%n", runSummary, reducers.size(),
                reducers.stream().map(Reducer::application).distinct().count()));
        for (Map.Entry<Integer, List<Reducer>> shape : byMaps.entrySet()) {
            body.append(table(shape.getKey(), shape.getValue()));
            plot(out, shape.getKey(), shape.getValue());
        }
        body.append(jobs(reducers));
        Results.write(out, "shuffle-timeline", csv(reducers), machine, body.toString());
    }

    static String table(int maps, List<Reducer> reducers) {
        List<Reducer> stock = side(reducers, false);
        List<Reducer> ours = side(reducers, true);
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "%n## Reducers of %d map outputs (%d stock, %d ours)%n%n| stage | stock | ours | ours/stock |%n|---|---|---|---|%n",
                maps, stock.size(), ours.size()));
        for (Stage stage : STAGES) {
            double base = Stats.median(stock, stage.millis::applyAsLong);
            double other = Stats.median(ours, stage.millis::applyAsLong);
            s.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %s |%n", stage.name, base, other,
                    base > 0 ? String.format(Locale.ROOT, "%.2f", other / base) : "n/a"));
        }
        return s.toString();
    }

    /** Per job (application, in the order they ran), the median of each stage over its reducers. */
    static String jobs(List<Reducer> reducers) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%n## Per job, medians over its reducers (ms)%n%n"
                + "| application | shuffle | map outputs per reducer | reducers | %s |%n|---|---|---:|---:|%s%n",
                STAGES.stream().map(Stage::column).collect(Collectors.joining(" | ")), "---:|".repeat(STAGES.size())));
        reducers.stream().collect(Collectors.groupingBy(Reducer::application, TreeMap::new, Collectors.toList()))
                .forEach((application, job) -> s.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %s |%n",
                        application, job.get(0).ours ? "ours" : "stock", job.get(0).maps, job.size(),
                        STAGES.stream().map(st -> String.format(Locale.ROOT, "%.0f", Stats.median(job, st.millis::applyAsLong)))
                                .collect(Collectors.joining(" | ")))));
        return s.toString();
    }

    private static void plot(Path out, int maps, List<Reducer> reducers) throws IOException {
        CategoryChart chart = Charts.bars("Reducers of " + maps + " map outputs: stages of the shuffle phase (medians)",
                "stage", "milliseconds");
        List<String> names = STAGES.stream().map(Stage::column).toList();
        for (boolean ours : new boolean[] {false, true}) {
            List<Reducer> side = side(reducers, ours);
            if (!side.isEmpty()) {
                chart.addSeries(ours ? "ours" : "stock", names, STAGES.stream().map(st -> Stats.median(side, st.millis::applyAsLong)).toList());
            }
        }
        Charts.save(out, "plot-" + maps + "-maps", chart);
    }

    static String csv(List<Reducer> reducers) {
        StringBuilder csv = new StringBuilder("application,container,shuffle,maps,"
                + STAGES.stream().map(Stage::column).collect(Collectors.joining(",")) + "\n");
        reducers.stream().sorted(Comparator.comparing(Reducer::application).thenComparing(Reducer::container))
                .forEach(r -> csv.append(String.join(",", r.application, r.container, r.ours ? "ours" : "stock",
                        String.valueOf(r.maps), STAGES.stream().map(st -> String.valueOf(st.millis.applyAsLong(r)))
                                .collect(Collectors.joining(",")))).append('\n'));
        return csv.toString();
    }

    private static List<Reducer> side(List<Reducer> reducers, boolean ours) {
        return reducers.stream().filter(r -> r.ours == ours).toList();
    }

    /** A log line's time in milliseconds, or -1 for a line without one (a continuation). */
    static long instant(String line) {
        if (line.length() < 23 || !Character.isDigit(line.charAt(0))) {
            return -1;
        }
        try {
            return LocalDateTime.parse(line.substring(0, 23), TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            return -1;
        }
    }

    private static long counter(Pattern counter, String counters, long otherwise) {
        Matcher m = counter.matcher(counters);
        return m.find() ? Long.parseLong(m.group(1)) : otherwise;
    }

    private static void require(long value, String container, String log, String what) {
        if (value < 0) {
            throw new IllegalArgumentException(container + ": no " + what + " in its " + log);
        }
    }
}
