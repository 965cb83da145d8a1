package io.hadooptipc.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What every benchmark writes to its output directory: results.csv, its plots (drawn with
 * {@link Charts} first) and summary.md, which shows them; its figures come from {@link Stats}.
 */
public final class Results {
    private Results() {
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
