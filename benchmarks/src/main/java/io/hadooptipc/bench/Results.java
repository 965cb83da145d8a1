package io.hadooptipc.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.DoubleStream;

/** What every benchmark reports: medians, and results.csv plus summary.md in its output directory. */
public final class Results {
    private Results() {
    }

    public static double median(DoubleStream values) {
        double[] v = values.sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /**
     * Writes {@code csv} to results.csv and a summary headed by the benchmark's name and the
     * machine to summary.md, and prints the summary.
     */
    public static void write(Path out, String name, CharSequence csv, String summaryBody) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.csv"), csv);
        String summary = "# " + name + "\n\n" + Machine.describe() + "\n" + summaryBody;
        Files.writeString(out.resolve("summary.md"), summary);
        System.out.println(summary);
    }
}
