package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.harness.FetchCost;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.knowm.xchart.CategoryChart;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Per-fetch cost of our TIPC shuffle client with kept-alive streams and without, side by
 * side in one run: our handler in testbed node n1 serves map outputs of each size, a
 * reducer in n2 fetches them one map output per request (as a fetcher does while maps
 * complete), reuse on and off interleaved round by round: wall time and the fetching
 * thread's CPU per fetch, and TIPC streams opened per series.
 * <p>Arguments: {@code OUT ROUNDS FETCHES SIZE...} (partition sizes in bytes).
 */
public final class FetchReuseBenchmark {
    private static final String SERVER_IP = TestbedNetwork.node(1);

    private record Row(int size, int round, boolean reuse, FetchCost.Measured m) {
        double wallMicrosPerFetch() {
            return m.wallNanos() / 1e3 / m.fetches();
        }

        double cpuMicrosPerFetch() {
            return m.cpuNanos() / 1e3 / m.fetches();
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        int fetches = Integer.parseInt(args[2]);
        List<Row> rows = new ArrayList<>();
        for (int a = 3; a < args.length; a++) {
            int size = Integer.parseInt(args[a]);
            MapOutputFixture outputs = new MapOutputFixture(Files.createTempDirectory("fetch-reuse"), fetches, 1, size);
            TipcShuffleHandler handler = outputs.serveIn("n1", TipcShuffleHandler::new, new YarnConfiguration());
            try {
                int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
                Testbed.on("n2", () -> Tipc.awaitPublished(ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port)
                        .tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Duration.ofSeconds(20)));
                Testbed.on("n2", () -> FetchCost.fetchEach(SERVER_IP, port, outputs.key, outputs.mapIds(), true)); // warm-up
                for (int round = 1; round <= rounds; round++) {
                    for (boolean reuse : round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                        FetchCost.Measured m = Testbed.on("n2",
                                () -> FetchCost.fetchEach(SERVER_IP, port, outputs.key, outputs.mapIds(), reuse));
                        Row row = new Row(size, round, reuse, m);
                        rows.add(row);
                        System.out.printf(Locale.ROOT, "%6d B round %d reuse %-5s %8.1f us/fetch wall, %8.1f us/fetch CPU, %d streams%n",
                                size, round, reuse, row.wallMicrosPerFetch(), row.cpuMicrosPerFetch(), m.streamsOpened());
                    }
                }
            } finally {
                Testbed.on("n1", () -> {
                    handler.stop();
                    return null;
                });
            }
        }
        report(out, rows, rounds, fetches, args);
    }

    private static void report(Path out, List<Row> rows, int rounds, int fetches, String[] args) throws Exception {
        StringBuilder csv = new StringBuilder("partition_bytes,round,reuse,fetches,wall_us_per_fetch,cpu_us_per_fetch,streams_opened,streams_reused\n");
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%s,%d,%.1f,%.1f,%d,%d%n", r.size, r.round, r.reuse, r.m.fetches(),
                    r.wallMicrosPerFetch(), r.cpuMicrosPerFetch(), r.m.streamsOpened(), r.m.streamsReused()));
        }
        CategoryChart chart = Charts.bars("Fetcher CPU per fetch, one map output per request", "partition (bytes)",
                "CPU per fetch (us, median)");
        StringBuilder summary = new StringBuilder(String.format(Locale.ROOT,
                "Our handler in n1, a reducer in n2 (namespaces of one guest), %d fetches of one map output each per series,"
                        + " %d rounds, reuse on and off interleaved; medians over rounds, ratio = median of each round's"
                        + " reuse/off.%n%n| partition | wall/fetch on | off | ratio | CPU/fetch on | off | ratio | streams on | off |%n"
                        + "|---|---|---|---|---|---|---|---|---|%n", fetches, rounds));
        List<String> sizes = new ArrayList<>();
        List<Double> cpuOn = new ArrayList<>();
        List<Double> cpuOff = new ArrayList<>();
        for (int a = 3; a < args.length; a++) {
            int size = Integer.parseInt(args[a]);
            List<Row> on = rows.stream().filter(r -> r.size == size && r.reuse).toList();
            List<Row> off = rows.stream().filter(r -> r.size == size && !r.reuse).toList();
            sizes.add(String.valueOf(size));
            cpuOn.add(Stats.median(on, Row::cpuMicrosPerFetch));
            cpuOff.add(Stats.median(off, Row::cpuMicrosPerFetch));
            summary.append(String.format(Locale.ROOT, "| %d B | %.0f us | %.0f us | %.2f | %.0f us | %.0f us | %.2f | %.0f | %.0f |%n",
                    size, Stats.median(on, Row::wallMicrosPerFetch), Stats.median(off, Row::wallMicrosPerFetch),
                    ratio(on, off, Row::wallMicrosPerFetch), cpuOn.get(cpuOn.size() - 1), cpuOff.get(cpuOff.size() - 1),
                    ratio(on, off, Row::cpuMicrosPerFetch), Stats.median(on, r -> r.m.streamsOpened()),
                    Stats.median(off, r -> r.m.streamsOpened())));
        }
        chart.addSeries("reuse on", sizes, cpuOn);
        chart.addSeries("reuse off", sizes, cpuOff);
        Charts.save(out, "plot", chart);
        Results.write(out, "fetch-reuse", csv, summary.toString());
    }

    /** The median over rounds of reuse on / off within each round. */
    private static double ratio(List<Row> on, List<Row> off, ToDoubleFunction<Row> metric) {
        return Stats.median(on.stream().mapToDouble(r -> metric.applyAsDouble(r) / off.stream()
                .filter(o -> o.round == r.round).mapToDouble(metric).findFirst().orElseThrow()));
    }
}
