package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeLossSeriesTest {
    @TempDir
    Path dir;

    @Test
    void joinsTheSessionsTrialsInRoundOrderWithOursAgainstStockRoundByRound() throws IOException {
        session("rounds-2-2", "abc1234", row(2, "stock-default", "loss", 700_000, true),
                row(2, "ours", "loss", 140_000, true), row(2, "ours", "flap", 10_000, false));
        session("rounds-1-1", "abc1234", row(1, "ours", "loss", 100_000, true),
                row(1, "stock-default", "loss", 800_000, true));

        NodeLossSeries.write(dir);

        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(NodeLossBenchmark.CSV_HEADER, csv.get(0));
        assertEquals(List.of("1", "1", "2", "2", "2"), csv.subList(1, csv.size()).stream().map(l -> l.split(",")[0]).toList());
        assertEquals(row(2, "stock-default", "loss", 700_000, true), csv.get(3));
        String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.contains("Ours / stock-default, fault to success, round by round: 0.13, 0.20"), summary);
        assertTrue(summary.contains("| ours | 2 | 12.0 s | 120.0 s |"), summary);
        assertTrue(summary.contains("FAILED: see rounds-2-2/summary.md"), summary);
        assertTrue(summary.contains("2 rounds measured in 2 sessions, all on commit abc1234"), summary);
        assertTrue(summary.contains("- [rounds-1-1](rounds-1-1/summary.md), rounds 1: testbed; commit abc1234;"), summary);
        assertTrue(Files.exists(dir.resolve("plot.png")));
    }

    @Test
    void refusesATrialOfARoundMeasuredTwice() throws IOException {
        session("rounds-1-1", "abc1234", row(1, "ours", "loss", 100_000, true));
        session("rounds-1-2", "abc1234", row(1, "ours", "loss", 100_000, true), row(2, "ours", "loss", 100_000, true));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NodeLossSeries.write(dir));
        assertTrue(e.getMessage().contains("round 1 ours:loss was measured twice, in rounds-1-1 and rounds-1-2"), e.getMessage());
    }

    @Test
    void refusesSessionsThatMeasuredDifferentCommits() throws IOException {
        session("rounds-1-1", "abc1234", row(1, "ours", "loss", 100_000, true));
        session("rounds-2-2", "def5678", row(2, "ours", "loss", 100_000, true));
        assertThrows(IllegalArgumentException.class, () -> NodeLossSeries.write(dir));
        assertTrue(Files.notExists(dir.resolve("summary.md")));
    }

    private void session(String name, String commit, String... rows) throws IOException {
        Path session = Files.createDirectories(dir.resolve(name));
        Files.writeString(session.resolve("summary.md"), "# node loss\n\nMachine: testbed; commit " + commit + "; "
                + name + "'s date.\n\nTables.\nHost load average after the run: 0.50 0.40 0.30.\n");
        Files.writeString(session.resolve("results.csv"), NodeLossBenchmark.CSV_HEADER + "\n" + String.join("\n", rows) + "\n");
    }

    /** A trial of 3 reducers whose first re-run came a tenth of the way to success (none on a flap). */
    private static String row(int round, String arm, String fault, long toSuccess, boolean ok) {
        boolean loss = fault.equals("loss");
        return String.join(",", String.valueOf(round), arm, fault, "3", "job_1_000" + round, String.valueOf(toSuccess + 60_000),
                String.valueOf(loss ? toSuccess / 10 - 500 : -1), String.valueOf(loss ? toSuccess / 10 : -1),
                String.valueOf(loss ? toSuccess / 10 + 7000 : -1), String.valueOf(toSuccess), loss ? "1" : "0", "0",
                loss ? "1" : "0", "0", "0", arm.equals("ours") && loss ? "3" : "0", arm.equals("ours") && loss ? "1" : "0",
                "0", "true", String.valueOf(ok));
    }
}
