package io.hadooptipc.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A benchmark whose rounds take more of the machine than one session has: each session measures some rounds of the
 * same commit into a folder {@code rounds-K-N} of the series' folder, with its own results.csv and summary.md, and the
 * series' result joins them. This reads the sessions and says why they are not one series, if they are not.
 */
public final class Series {
    public static final String SESSION_PREFIX = "rounds-";
    private static final String LOAD_AFTER = "Host load average after the run: ";
    private static final Pattern COMMIT = Pattern.compile("commit ([0-9a-f]+)( with uncommitted changes)?;");

    /** A session's folder: its summary's Machine line, the host's load after it, its commit and its csv rows. */
    public record Session(String name, String machine, String loadAfter, String commit, List<Map<String, String>> rows) {
        static Session read(Path dir, String csvHeader) throws IOException {
            String name = dir.getFileName().toString();
            List<String> summary = Files.readAllLines(dir.resolve("summary.md"));
            String machine = Machine.lineOf(summary)
                    .orElseThrow(() -> new IllegalArgumentException(name + ": its summary.md has no Machine: line"));
            String loadAfter = summary.stream().filter(l -> l.startsWith(LOAD_AFTER)).findFirst()
                    .map(l -> l.substring(LOAD_AFTER.length())).orElse("not recorded.");
            Matcher commit = COMMIT.matcher(machine);
            if (!commit.find()) {
                throw new IllegalArgumentException(name + ": its Machine: line names no commit");
            }
            List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
            if (csv.isEmpty() || !csv.get(0).equals(csvHeader)) {
                throw new IllegalArgumentException(name + ": results.csv's header is not the benchmark's: "
                        + (csv.isEmpty() ? "empty file" : csv.get(0)));
            }
            String[] header = csvHeader.split(",");
            List<Map<String, String>> rows = new ArrayList<>();
            for (String line : csv.subList(1, csv.size())) {
                String[] values = line.split(",", -1);
                if (values.length != header.length) {
                    throw new IllegalArgumentException(name + ": results.csv row with " + values.length + " fields: " + line);
                }
                Map<String, String> fields = new LinkedHashMap<>();
                for (int i = 0; i < header.length; i++) {
                    fields.put(header[i], values[i]);
                }
                rows.add(fields);
            }
            return new Session(name, machine, loadAfter, commit.group(1) + (commit.group(2) == null ? "" : commit.group(2)),
                    rows);
        }

        /** Its Machine: line without the prefix, as a sentence of a list of sessions. */
        public String provenance() {
            return machine.substring("Machine: ".length());
        }
    }

    private Series() {
    }

    /**
     * The sessions of the series in {@code dir} (its {@code rounds-*} folders with a results.csv, in name order), each
     * csv headed by {@code csvHeader}, checked to be one series: one commit with nothing uncommitted, and no row whose
     * {@code key} (a round and what ran in it) two sessions measured.
     */
    public static List<Session> read(Path dir, String csvHeader, Function<Map<String, String>, String> key) throws IOException {
        List<Session> sessions = new ArrayList<>();
        try (Stream<Path> folders = Files.list(dir)) {
            for (Path folder : folders.filter(f -> f.getFileName().toString().startsWith(SESSION_PREFIX))
                    .filter(f -> Files.exists(f.resolve("results.csv"))).sorted().toList()) {
                sessions.add(Session.read(folder, csvHeader));
            }
        }
        if (sessions.isEmpty()) {
            throw new IllegalArgumentException("no " + SESSION_PREFIX + "K-N folder with a results.csv");
        }
        List<String> commits = sessions.stream().map(Session::commit).distinct().toList();
        if (commits.size() > 1 || commits.get(0).contains("uncommitted")) {
            throw new IllegalArgumentException("a series measures one commit, with nothing uncommitted; these sessions measured "
                    + sessions.stream().map(s -> s.name() + ": " + s.commit()).collect(Collectors.joining(", ")));
        }
        Map<String, String> measured = new HashMap<>();
        for (Session s : sessions) {
            for (Map<String, String> row : s.rows()) {
                String before = measured.put(key.apply(row), s.name());
                if (before != null && !before.equals(s.name())) {
                    throw new IllegalArgumentException(key.apply(row) + " was measured twice, in " + before + " and " + s.name());
                }
            }
        }
        return sessions;
    }

    /** Deletes the plots an earlier join of the series left in {@code dir}. */
    public static void deletePlots(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path png : files.filter(f -> f.getFileName().toString().endsWith(".png")).toList()) {
                Files.delete(png);
            }
        }
    }

    /** A summary's list of the sessions with their rounds, provenance and the host's load after each. */
    public static String sessions(List<Session> sessions, Function<Session, String> rounds) {
        StringBuilder s = new StringBuilder("## Sessions\n\n");
        for (Session session : sessions) {
            s.append(String.format("- [%s](%s/summary.md), rounds %s: %s Host load average after it: %s%n", session.name(),
                    session.name(), rounds.apply(session), session.provenance(), session.loadAfter()));
        }
        return s.toString();
    }
}
