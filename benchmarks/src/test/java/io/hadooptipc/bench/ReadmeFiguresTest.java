package io.hadooptipc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.ReadmeFigures.Block;
import io.hadooptipc.bench.ReadmeFigures.Figure;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No figure in a README that is not in the committed results it links. */
class ReadmeFiguresTest {
    /**
     * Sections whose figures are no benchmark result, with why; benchmarks/README.md lists them too.
     * The testbed's timings say how long its own commands take, as a guide to what to run in the guest.
     */
    private static final Map<String, String> SECTIONS_WITHOUT_RESULTS = Map.of("testbed/README.md", "## Timings");

    private static final Path ROOT = projectRoot();
    private static final Path RESULTS = ROOT.resolve("benchmarks/results");

    @Test
    void everyFigureInAReadmeIsInTheResultsItLinks() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path readme : ReadmeFigures.readmes(ROOT)) {
            String name = ROOT.relativize(readme).toString();
            String heading = "";
            for (Block block : ReadmeFigures.blocks(Files.readAllLines(readme))) {
                if (block.text().startsWith("#")) {
                    heading = block.text().strip();
                }
                List<Figure> figures = ReadmeFigures.figures(block.text());
                if (figures.isEmpty() || heading.startsWith(SECTIONS_WITHOUT_RESULTS.getOrDefault(name, "\0"))) {
                    continue;
                }
                Set<String> linked = block.linkedResults();
                if (linked.isEmpty()) {
                    problems.add(name + ":" + block.line() + ": " + written(figures) + " with no link to benchmarks/results/<name>");
                    continue;
                }
                List<BigDecimal> results = new ArrayList<>();
                for (String result : linked) {
                    if (!Files.isRegularFile(RESULTS.resolve(result).resolve("summary.md"))) {
                        problems.add(name + ":" + block.line() + ": links results/" + result + ", which has no summary.md");
                    } else {
                        results.addAll(ReadmeFigures.numbersIn(RESULTS.resolve(result)));
                    }
                }
                List<Figure> unbacked = figures.stream().filter(f -> !ReadmeFigures.backedBy(f, results)).toList();
                if (!unbacked.isEmpty()) {
                    problems.add(name + ":" + block.line() + ": " + written(unbacked) + " not in results/" + String.join(", results/", linked));
                }
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " README figures without committed results:\n" + String.join("\n", problems));
    }

    @Test
    void figuresAreDecimalsRatiosAndSharesButNotVersionsCountsOrCode() {
        assertEquals(List.of("1.34", "2.14", "24", "29", "4", "0.4"), texts(
                "TIPC moves 1.34–2.14× TCP's rate, cost 24–29 % at 16–64 KiB on 4 files × 32 MB, 4x faster, 0.4 pp off"));
        assertEquals(List.of(), texts("Linux ≥ 5.6, QEMU 10.0.2, JNA 5.17, Hadoop 3.5.0 and 3.4.x, Hadoop 3.5 (a) and 3.4, "
                + "wordcount-1x1, 2 x AMD EPYC, `-Xmx0.5g`, 292,613 bytes, a 95% bootstrap interval"));
        assertEquals(List.of("1,024"), texts("1,024 partitions, 1,024%"));
    }

    @Test
    void aFigureMayRoundAResultButNotAddPlaces() {
        List<BigDecimal> results = List.of(new BigDecimal("4.14"), new BigDecimal("0.297"), new BigDecimal("3"));
        assertTrue(ReadmeFigures.backedBy(figure("4.1"), results));
        assertTrue(ReadmeFigures.backedBy(figure("0.30"), results));
        assertTrue(ReadmeFigures.backedBy(figure("3"), results));
        assertFalse(ReadmeFigures.backedBy(figure("3.0"), results), "3 does not say 3.0");
        assertFalse(ReadmeFigures.backedBy(figure("4.2"), results));
    }

    @Test
    void resultsAreTheNumbersOfTheRunsTextFilesAndItsSessionsButNotItsCsvOrVersions(@TempDir Path run) throws IOException {
        Files.writeString(run.resolve("summary.md"), "kernel 6.18.44, 292,613 bytes, ratio 0.62.\n");
        Files.writeString(run.resolve("bin-run.log"), "elapsed 916.17 s\n");
        Files.writeString(run.resolve("results.csv"), "ratio\n0.73\n");
        Files.writeString(Files.createDirectory(run.resolve("rounds-2-2")).resolve("summary.md"), "first job 0.90\n");
        assertEquals(List.of("0.62", "0.90", "292613", "916.17"),
                ReadmeFigures.numbersIn(run).stream().map(BigDecimal::toPlainString).sorted().toList());
    }

    @Test
    void blocksAreParagraphsItemsAndTablesWithoutCodeAndAHeadingLinksItsSection() {
        List<Block> blocks = ReadmeFigures.blocks(List.of(
                "## a 1.5× gain", "", "text 2.5", "more", "- item 3.5", "  still item", "| 4.5 |", "", "    code 5.5",
                "```", "6.5", "```", "[s](results/x/summary.md)", "## next"));
        assertEquals(List.of("## a 1.5× gain\n", "text 2.5\nmore\n", "- item 3.5\n  still item\n", "| 4.5 |\n",
                "[s](results/x/summary.md)\n", "## next\n"), blocks.stream().map(Block::text).toList());
        assertEquals(Set.of("x"), blocks.get(0).linkedResults());
        assertEquals(Set.of(), blocks.get(1).linkedResults());
    }

    private static List<String> texts(String prose) {
        return ReadmeFigures.figures(prose).stream().map(Figure::written).toList();
    }

    private static Figure figure(String written) {
        return ReadmeFigures.figures(written + "×").get(0);
    }

    private static String written(List<Figure> figures) {
        return String.join(" ", figures.stream().map(Figure::written).toList());
    }

    /** Surefire runs in benchmarks/; the project root is the folder that holds benchmarks/results. */
    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(dir.resolve("benchmarks/results"))) {
            dir = dir.getParent();
        }
        return dir;
    }
}
