package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.shuffle.harness.RouteRecovery.Fetch;
import io.hadooptipc.shuffle.harness.RouteRecovery.Report;
import io.hadooptipc.shuffle.harness.RouteRecovery;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.knowm.xchart.XYChart;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import javax.crypto.SecretKey;

/**
 * How soon a reducer's fetches from a map host go over TIPC again after the host's shuffle handler restarts, with
 * the routes following TIPC's topology service. Machine 2 runs our handler (the NodeManager's
 * mapreduce_shuffle aux service, HTTP/TCP and TIPC) and, when machine 1 asks over a control stream, stops it, waits
 * {@link #DOWN} and starts it again, answering once it serves: its TIPC names are withdrawn and published again, as
 * in a NodeManager restart. Machine 1 fetches one map output from it again and again ({@link RouteRecovery}) and
 * times, on its own clock from each request, the topology reports, the answer and the first fetch over TIPC after
 * the restart. The clocks of the two machines are never compared: the delay from the name's publication to its
 * report is topology-latency's measurement; this one measures what the routes add after the report.
 * <pre>
 *   RouteRecoveryBenchmark serve CONTROL_TYPE WORK PORT                  on machine 2
 *   RouteRecoveryBenchmark run CONTROL_TYPE WORK SERVER_IP PORT CYCLES OUT   on machine 1
 * </pre>
 */
public final class RouteRecoveryBenchmark {
    private static final int INSTANCE = 2;
    private static final int PARTITION_BYTES = 4096;
    private static final Duration DOWN = Duration.ofMillis(500);
    /** Fetching over TIPC this long before each restart, so each cycle starts from the steady state. */
    private static final Duration STEADY = Duration.ofSeconds(1);
    private static final Duration BACK_TIMEOUT = Duration.ofSeconds(60);
    private static final double GOAL_MILLIS = 1000;

    /** One restart, timed in microseconds on machine 1 from its request (the fetch back: from the report and answer). */
    record Cycle(int cycle, long answerMicros, long withdrawnReportMicros, long publishedReportMicros,
                 long tipcAfterReportMicros, long tipcAfterAnswerMicros, int tcpFetches, int failedFetches) {
    }

    public static void main(String[] args) throws Exception {
        int controlType = Integer.parseInt(args[1]);
        Path work = Path.of(args[2]);
        switch (args[0]) {
            case "serve" -> serve(controlType, work, Integer.parseInt(args[3]));
            case "run" -> run(controlType, work, args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    Path.of(args[6]));
            default -> throw new IllegalArgumentException("serve or run, not " + args[0]);
        }
    }

    /** Serves a map output, restarting the handler on each request and answering once it serves again; one client. */
    private static void serve(int controlType, Path work, int port) throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true); // each start registers the handler's metrics again
        MapOutputFixture outputs = new MapOutputFixture(work.resolve("outputs"), 1, 1, PARTITION_BYTES);
        Files.write(work.resolve("job-token"), outputs.token.getPassword());
        TipcShuffleHandler handler = outputs.serve(new TipcShuffleHandler(), new YarnConfiguration(), port);
        try (TipcServerSocketChannel control = TipcServerSocketChannel.open()
                .bind(TipcServiceAddress.of(controlType, INSTANCE));
             TipcSocketChannel client = control.accept()) {
            ByteBuffer request = ByteBuffer.allocate(1);
            while (client.read(request.clear()) >= 0) {
                handler.stop();
                Thread.sleep(DOWN.toMillis());
                handler = outputs.serve(new TipcShuffleHandler(), new YarnConfiguration(), port);
                client.writeFully(request.flip());
            }
        } finally {
            handler.stop();
        }
    }

    private static void run(int controlType, Path work, String serverIp, int port, int cycles, Path out)
            throws Exception {
        SecretKey key = JobTokenSecretManager.createSecretKey(Files.readAllBytes(work.resolve("job-token")));
        List<Cycle> done = new ArrayList<>();
        try (TipcSocketChannel control = TipcSocketChannel.open(TipcServiceAddress.of(controlType, INSTANCE));
             RouteRecovery fetching = RouteRecovery.start(serverIp, port, key, ShuffleWire.map(0))) {
            await(fetching, System.nanoTime(), "the first fetch over TIPC");
            for (int c = 1; c <= cycles; c++) {
                Thread.sleep(STEADY.toMillis());
                Cycle cycle = restart(control, fetching, c);
                System.out.printf(Locale.ROOT, "restart %2d: served again after %.0f ms; withdrawal reported after"
                                + " %.1f ms, publication after %.1f ms; next fetch over TIPC %.1f ms after the report"
                                + " (%.1f ms after the answer); meanwhile %d fetches over HTTP/TCP, %d failed%n",
                        c, cycle.answerMicros() / 1e3, cycle.withdrawnReportMicros() / 1e3,
                        cycle.publishedReportMicros() / 1e3, cycle.tipcAfterReportMicros() / 1e3,
                        cycle.tipcAfterAnswerMicros() / 1e3, cycle.tcpFetches(), cycle.failedFetches());
                done.add(cycle);
            }
        }
        report(out, done);
    }

    /** Asks machine 2 to restart its handler and times, from the request, what machine 1 saw until TIPC was back. */
    private static Cycle restart(TipcSocketChannel control, RouteRecovery fetching, int c) throws Exception {
        long request = System.nanoTime();
        control.writeFully(ByteBuffer.wrap(new byte[]{'R'}));
        if (control.read(ByteBuffer.allocate(1)) < 0) {
            throw new EOFException("machine 2 closed the control stream");
        }
        long answer = System.nanoTime();
        Fetch back = await(fetching, request, "a fetch over TIPC after restart " + c);
        List<Report> reports = fetching.reportsSince(request);
        long withdrawn = reports.stream().filter(r -> !r.published()).findFirst()
                .orElseThrow(() -> new IOException("no withdrawal reported in restart " + c)).nanos();
        long published = reports.stream().filter(r -> r.published() && r.nanos() > withdrawn).findFirst()
                .orElseThrow(() -> new IOException("no publication reported in restart " + c)).nanos();
        List<Fetch> between = fetching.fetchesSince(request).stream()
                .filter(f -> f.startNanos() < back.startNanos()).toList();
        return new Cycle(c, micros(answer - request), micros(withdrawn - request), micros(published - request),
                micros(back.startNanos() - published), micros(back.startNanos() - answer),
                (int) between.stream().filter(f -> f.failure() == null && !f.viaTipc()).count(),
                (int) between.stream().filter(f -> f.failure() != null).count());
    }

    /** The first whole fetch over TIPC that started at or after {@code since}, waiting for it. */
    private static Fetch await(RouteRecovery fetching, long since, String what) throws Exception {
        long deadline = System.nanoTime() + BACK_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Fetch> tipc = fetching.fetchesSince(since).stream()
                    .filter(f -> f.viaTipc() && f.failure() == null).findFirst();
            if (tipc.isPresent()) {
                return tipc.get();
            }
            Thread.sleep(5);
        }
        List<Fetch> seen = fetching.fetchesSince(since);
        throw new IOException("no " + what + " within " + BACK_TIMEOUT + "; " + seen.size() + " fetches meanwhile, the"
                + " last: " + (seen.isEmpty() ? "none" : seen.get(seen.size() - 1)));
    }

    private static long micros(long nanos) {
        return nanos / 1000;
    }

    private static void report(Path out, List<Cycle> cycles) throws IOException {
        StringBuilder csv = new StringBuilder("cycle,answer_us,withdrawn_report_us,published_report_us,"
                + "tipc_after_report_us,tipc_after_answer_us,tcp_fetches,failed_fetches\n");
        for (Cycle c : cycles) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%d,%d,%d%n", c.cycle(), c.answerMicros(),
                    c.withdrawnReportMicros(), c.publishedReportMicros(), c.tipcAfterReportMicros(),
                    c.tipcAfterAnswerMicros(), c.tcpFetches(), c.failedFetches()));
        }
        double[] x = cycles.stream().mapToDouble(Cycle::cycle).toArray();
        XYChart chart = Charts.lines("Back to TIPC after a shuffle handler restart on the other machine", "restart",
                "ms until the next fetch over TIPC starts");
        chart.addSeries("after the publication's report", x, millis(cycles, Cycle::tipcAfterReportMicros));
        chart.addSeries("after the handler served again", x, millis(cycles, Cycle::tipcAfterAnswerMicros));
        Charts.save(out, "plot", chart);
        Results.write(out, "route-recovery", csv, summary(cycles));
    }

    static String summary(List<Cycle> cycles) {
        double[] afterReport = millis(cycles, Cycle::tipcAfterReportMicros);
        double worst = Arrays.stream(afterReport).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, """
                        Machine 2 ran our shuffle handler (HTTP/TCP and TIPC) and restarted it %d times, each when \
                        machine 1 asked over a control stream: stopped (its TIPC names withdrawn), %d ms down, started \
                        again (its names published), then answered. Machine 1 fetched one %d-byte map output from it \
                        again and again through a reduce task's routes and streams (HTTP/TCP fallback as by default, a \
                        failed fetch retried after %d ms), and timed from each request, on its own clock, the topology \
                        reports, the answer and the first fetch over TIPC after the restart (a fetch takes its route                         when it connects, so one that started just before the report can be the first: a negative wait).

                        | | min | median | 90th percentile | max |
                        |---|---:|---:|---:|---:|
                        %s
                        %s
                        %s
                        %s
                        %s
                        %s
                        %s

                        Goal: a host's next fetch goes over TIPC within 1 s of its name being published \
                        again. That time is the publication's report delay, measured by \
                        [topology-latency](../topology-latency/summary.md), plus the wait from the report to the next \
                        fetch over TIPC, at most %.1f ms here: so the goal is %s as long as the report comes within \
                        %.0f ms of the publication. Every restart ended with its host back on TIPC.
                        """, cycles.size(), DOWN.toMillis(), PARTITION_BYTES, RouteRecovery.RETRY_MILLIS,
                Stats.percentileRow("handler stopped, down and serving again: answer - request (ms)",
                        millis(cycles, Cycle::answerMicros)),
                Stats.percentileRow("withdrawal reported (ms after the request)", millis(cycles, Cycle::withdrawnReportMicros)),
                Stats.percentileRow("publication reported (ms after the request)", millis(cycles, Cycle::publishedReportMicros)),
                Stats.percentileRow("**publication reported → next fetch over TIPC starts (ms)**", afterReport),
                Stats.percentileRow("handler serving again (answer) → next fetch over TIPC starts (ms)",
                        millis(cycles, Cycle::tipcAfterAnswerMicros)),
                Stats.percentileRow("fetches over HTTP/TCP meanwhile", count(cycles, Cycle::tcpFetches)),
                Stats.percentileRow("failed fetches meanwhile (handler down)", count(cycles, Cycle::failedFetches)),
                worst, worst < GOAL_MILLIS ? "met" : "**missed**", GOAL_MILLIS - worst);
    }

    private static double[] millis(List<Cycle> cycles, ToLongFunction<Cycle> micros) {
        return cycles.stream().mapToDouble(c -> micros.applyAsLong(c) / 1e3).toArray();
    }

    private static double[] count(List<Cycle> cycles, ToIntFunction<Cycle> count) {
        return cycles.stream().mapToDouble(count::applyAsInt).toArray();
    }

    private RouteRecoveryBenchmark() {
    }
}
