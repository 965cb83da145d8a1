package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Series;
import io.hadooptipc.bench.common.Series.Session;
import io.hadooptipc.bench.shuffle.NodeLossBenchmark.Outcome;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One result from a series of {@link NodeLossBenchmark} sessions, each some rounds of the same trials on the same
 * commit in a folder {@code rounds-K-N} of DIR: a round takes about 45 minutes here (a stock-default loss stalls 10-13
 * minutes), more than a session has beside its other work for three. Writes DIR's results.csv, plot.png and
 * summary.md of every trial of every session, in round order, with each session's provenance.
 * <p>Arguments: {@code DIR}. Exits 1, writing nothing, if the sessions measured different commits (or one had
 * uncommitted changes), or a trial of a round twice.
 */
public final class NodeLossSeries {
    public static void main(String[] args) throws IOException {
        try {
            write(Path.of(args[0]));
        } catch (IllegalArgumentException e) {
            System.err.println("node-loss series: " + e.getMessage());
            System.exit(1);
        }
    }

    static void write(Path dir) throws IOException {
        List<Session> sessions = Series.read(dir, NodeLossBenchmark.CSV_HEADER,
                row -> "round " + row.get("round") + " " + row.get("arm") + ":" + row.get("fault"));
        List<Outcome> outcomes = new ArrayList<>();
        for (Session session : sessions) {
            session.rows().forEach(row -> outcomes.add(Outcome.of(row, session.name())));
        }
        outcomes.sort((a, b) -> Integer.compare(a.round(), b.round()));
        Series.deletePlots(dir);
        NodeLossBenchmark.write(dir, sessions.get(0).machine() + "\n", outcomes, String.format("%n%d round%s measured in"
                        + " %d session%s, all on commit %s; each session's summary has its own tables.%n%n%s",
                rounds(outcomes), rounds(outcomes) == 1 ? "" : "s", sessions.size(), sessions.size() == 1 ? "" : "s",
                sessions.get(0).commit(), Series.sessions(sessions, session -> session.rows().stream()
                        .map(row -> row.get("round")).distinct().collect(Collectors.joining(", ")))));
    }

    private static long rounds(List<Outcome> outcomes) {
        return outcomes.stream().map(Outcome::round).distinct().count();
    }

    private NodeLossSeries() {
    }
}
