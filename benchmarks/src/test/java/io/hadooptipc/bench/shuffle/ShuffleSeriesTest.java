package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShuffleSeriesTest {
    @TempDir
    Path dir;

    @Test
    void joinsTheSessionsRoundsIntoOneComparison() throws IOException {
        session("rounds-1-2", "abc1234", "0.50 0.40 0.30",
                row(1, "stock", 100, 10, 8), row(1, "ours", 50, 5, 2),
                row(2, "ours", 300, 30, 4), row(2, "stock", 200, 20, 8));
        session("rounds-3-3", "abc1234", null, row(3, "stock", 400, 40, 8), row(3, "ours", 200, 20, 4));
        Files.write(dir.resolve("plot-cpu.png"), new byte[]{1});  // an earlier series' plot

        ShuffleSeries.write(dir);

        String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.startsWith("# shuffle\n\nMachine: testbed; commit abc1234; rounds-1-2's date.\n"), summary);
        assertTrue(summary.contains("3 rounds measured in 2 sessions, all on commit abc1234"), summary);
        // Shuffle phase ratios 0.5, 1.5, 0.5 over both sessions: their median, not the ratio of the medians (200 / 200).
        assertTrue(summary.contains("| shuffle phase, median reducer (wall) (ms) | 200 | 200 | 0.50 | 0.50 to 1.50 |"), summary);
        assertTrue(summary.contains("| NodeManager shuffle-serving CPU (ms) | 8 | 4 | 0.50 | 0.25 to 0.50 |"), summary);
        assertTrue(summary.contains("| 2 | ours | rounds-1-2 | 1.50 | 1.50 | 0.50 |"), summary);
        assertTrue(summary.contains("| 3 | stock | rounds-3-3 | 0.50 | 0.50 | 0.50 |"), summary);
        // Order balanced: round 1 (stock first) with round 2 (ours first); round 3 has no partner yet.
        assertTrue(summary.contains("(pairs of rounds: 1)"), summary);
        assertTrue(summary.contains("| shuffle phase, median reducer (wall) | 0.50 | 1.50 | 0.87 | n/a |"), summary);
        assertTrue(summary.contains("| NodeManager shuffle-serving CPU | 0.38 | 0.50 | 0.35 | n/a |"), summary);
        // Machine 1's instructions 1100, 1200, 1400 (stock) and 1050, 1300, 1200 (ours): ratios 0.95, 1.08, 0.86.
        assertTrue(summary.contains("| instructions during the job, machine 1 (reducers, ApplicationMaster, masters) "
                + "(millions) | 1200 | 1200 | 0.95 |"), summary);
        assertTrue(summary.contains("600 of 600 shuffled bytes over TIPC, 0 over TCP"), summary);
        assertTrue(summary.contains("byte-identical to the stock shuffle's in every round: yes"), summary);
        assertTrue(summary.contains("- [rounds-1-2](rounds-1-2/summary.md), rounds 1, 2: testbed; commit abc1234; "
                + "rounds-1-2's date. Host load average after it: 0.50 0.40 0.30."), summary);
        assertTrue(summary.contains("rounds 3: testbed; commit abc1234; rounds-3-3's date. Host load average after it: "
                + "not recorded."), summary);
        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals("session," + SideBySide.CSV_HEADER, csv.get(0));
        assertEquals(7, csv.size());
        assertTrue(csv.get(6).startsWith("rounds-3-3,3,shuffle-heavy,2,2,ours,"), csv.get(6));
        assertTrue(Files.size(dir.resolve("plot.png")) > 0);
        assertFalse(Files.exists(dir.resolve("plot-cpu.png")));
    }

    @Test
    void aSeriesWhoseInstructionsWereNotCountedShowsNone() throws IOException {
        session("rounds-1-1", "abc1234", null, uncounted(row(1, "stock", 100, 10, 8)), uncounted(row(1, "ours", 50, 5, 2)));

        ShuffleSeries.write(dir);

        String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.contains("| shuffle phase, median reducer (wall) (ms) | 100 | 50 | 0.50 |"), summary);
        assertFalse(summary.contains("instructions"), summary);
    }

    @Test
    void balancesTheKthRoundOfEachOrder() {
        List<ShuffleSeries.Pair> pairs = List.of(pair(1, true, 100, 50), pair(2, false, 100, 200), pair(3, true, 100, 80),
                pair(4, false, 100, 125), pair(5, true, 100, 10));
        double[] balanced = ShuffleSeries.balanced(pairs, "shuffle_ms_median");
        assertEquals(2, balanced.length, "round 5 has no ours-first partner");
        assertEquals(1.0, balanced[0], 1e-9, "sqrt(0.5 * 2.0)");
        assertEquals(1.0, balanced[1], 1e-9, "sqrt(0.8 * 1.25)");
    }

    private static ShuffleSeries.Pair pair(int round, boolean stockFirst, long stockMillis, long oursMillis) {
        ShuffleSeries.Run stock = run(stockFirst ? 0 : 1, row(round, "stock", stockMillis, 1, 1));
        ShuffleSeries.Run ours = run(stockFirst ? 1 : 0, row(round, "ours", oursMillis, 1, 1));
        return new ShuffleSeries.Pair(stock, ours);
    }

    private static ShuffleSeries.Run run(int row, String csvRow) {
        String[] header = SideBySide.CSV_HEADER.split(",");
        String[] values = csvRow.split(",");
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < header.length; i++) {
            fields.put(header[i], values[i]);
        }
        return new ShuffleSeries.Run("rounds-1-5", row, fields);
    }

    @Test
    void refusesSessionsThatMeasuredDifferentCommits() throws IOException {
        session("rounds-1-2", "abc1234", null, row(1, "stock", 100, 10, 8), row(1, "ours", 50, 5, 2));
        session("rounds-3-4", "def5678", null, row(3, "stock", 100, 10, 8), row(3, "ours", 50, 5, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShuffleSeries.write(dir));
        assertTrue(e.getMessage().contains("rounds-1-2: abc1234, rounds-3-4: def5678"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("summary.md")));
    }

    @Test
    void refusesASessionWithUncommittedChanges() throws IOException {
        session("rounds-1-1", "abc1234 with uncommitted changes", null, row(1, "stock", 100, 10, 8), row(1, "ours", 50, 5, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShuffleSeries.write(dir));
        assertTrue(e.getMessage().contains("abc1234 with uncommitted changes"), e.getMessage());
    }

    @Test
    void refusesARoundMeasuredTwice() throws IOException {
        session("rounds-1-2", "abc1234", null, row(2, "stock", 100, 10, 8), row(2, "ours", 50, 5, 2));
        session("rounds-2-3", "abc1234", null, row(2, "stock", 100, 10, 8), row(2, "ours", 50, 5, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShuffleSeries.write(dir));
        assertTrue(e.getMessage().contains("shuffle-heavy-2x2 round 2 stock was measured twice, in rounds-1-2 and rounds-2-3"),
                e.getMessage());
    }

    @Test
    void refusesSessionsThatRanDifferentJobs() throws IOException {
        session("rounds-1-1", "abc1234", null, row(1, "stock", 100, 10, 8), row(1, "ours", 50, 5, 2));
        session("rounds-2-2", "abc1234", null, row(2, "stock", 100, 10, 8).replace("shuffle-heavy,2,2", "shuffle-heavy,4,4"),
                row(2, "ours", 50, 5, 2).replace("shuffle-heavy,2,2", "shuffle-heavy,4,4"));
        assertThrows(IllegalArgumentException.class, () -> ShuffleSeries.write(dir));
    }

    @Test
    void refusesAFolderOfNoSession() {
        assertThrows(IllegalArgumentException.class, () -> ShuffleSeries.write(dir));
    }

    /** A session's folder as benchmarks/shuffle leaves it; {@code loadAfter} null: the host's load was not recorded. */
    private void session(String name, String commit, String loadAfter, String... rows) throws IOException {
        Path session = Files.createDirectories(dir.resolve(name));
        Files.writeString(session.resolve("summary.md"), "# shuffle\n\nMachine: testbed; commit " + commit + "; " + name
                + "'s date.\n\nTables.\n" + (loadAfter == null ? "" : "Host load average after the run: " + loadAfter + ".\n"));
        Files.writeString(session.resolve("results.csv"), SideBySide.CSV_HEADER + "\n" + String.join("\n", rows) + "\n");
    }

    /** A job run of a 2x2 shuffle-heavy job, 100 bytes shuffled, all over TIPC for ours. */
    private static String row(int round, String side, long shuffleMillis, long shuffleCpuMillis, long servingCpuMillis) {
        boolean ours = side.equals("ours");
        return String.join(",", String.valueOf(round), "shuffle-heavy", "2", "2", side, ours ? "tipc" : "tcp", "1000",
                String.valueOf(shuffleMillis), String.valueOf(shuffleCpuMillis), String.valueOf(servingCpuMillis), "900", "500",
                "200", ours ? "200" : "0", "0", ours ? "4" : "0", "0", "0", ours ? "250" : "10", "true", "true",
                String.valueOf(1000 + shuffleMillis), "700");
    }

    /** {@link #row} of a run whose machines' instructions were not counted. */
    private static String uncounted(String row) {
        return row.replaceAll(",[^,]*,[^,]*$", ",-1,-1");
    }
}
