package io.hadooptipc.bench.binding;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;
import org.knowm.xchart.XYChart;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * How soon a reducer's node hears from TIPC's topology service that a map host's shuffle name was published or
 * withdrawn on another machine: the delay behind the shuffle's route switches (TransportRoutes), which act on the
 * report the moment it arrives. A NodeManager that starts publishes its names by binding them; one that stops, or
 * whose TIPC goes away, withdraws them.
 * <p>Machine 2 binds and closes a socket on a name when machine 1 asks over a control stream and answers once done.
 * Machine 1 times, from each request on its own clock, the answer and the topology report. The report came at most
 * (report - request) after the bind, and at least (report - answer): the clocks of the two machines are never
 * compared. Also timed on machine 1, right after each withdrawal: a connect to the withdrawn name, which is what
 * each fetch from that host cost before the routes followed the topology service (it failed, and the host then
 * stayed on HTTP/TCP for the rest of the task, however soon its name came back).
 * <pre>
 *   TopologyLatencyBenchmark serve TYPE CONTROL_TYPE              on machine 2
 *   TopologyLatencyBenchmark run TYPE CONTROL_TYPE CYCLES OUT     on machine 1
 * </pre>
 */
public final class TopologyLatencyBenchmark {
    private static final int INSTANCE = 2;
    private static final byte BIND = 'B';
    private static final byte CLOSE = 'C';
    private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(30);
    private static final double GOAL_MILLIS = 1000;

    /** One cycle's timings on machine 1, in microseconds from its request. */
    record Cycle(int cycle, long publishAnswerMicros, long publishReportMicros, long withdrawAnswerMicros,
                 long withdrawReportMicros, long connectToWithdrawnMicros) {
    }

    public static void main(String[] args) throws Exception {
        int type = Integer.parseInt(args[1]);
        int controlType = Integer.parseInt(args[2]);
        switch (args[0]) {
            case "serve" -> serve(type, controlType);
            case "run" -> run(type, controlType, Integer.parseInt(args[3]), Path.of(args[4]));
            default -> throw new IllegalArgumentException("serve or run, not " + args[0]);
        }
    }

    /** Binds the name on BIND and closes its socket on CLOSE, answering each request once done; one client. */
    private static void serve(int type, int controlType) throws IOException {
        try (TipcServerSocketChannel control = TipcServerSocketChannel.open()
                .bind(TipcServiceAddress.of(controlType, INSTANCE));
             TipcSocketChannel client = control.accept()) {
            ByteBuffer request = ByteBuffer.allocate(1);
            TipcServerSocketChannel bound = null;
            while (true) {
                request.clear();
                if (client.read(request) < 0) {
                    break;
                }
                if (request.get(0) == BIND) {
                    bound = TipcServerSocketChannel.open().bind(TipcServiceAddress.of(type, INSTANCE));
                } else if (bound != null) {
                    bound.close();
                    bound = null;
                }
                client.writeFully(ByteBuffer.wrap(new byte[]{request.get(0)}));
            }
            if (bound != null) {
                bound.close();
            }
        }
    }

    private static void run(int type, int controlType, int cycles, Path out) throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(type, INSTANCE);
        List<Cycle> done = new ArrayList<>();
        try (TipcTopologyChannel topology = TipcTopologyChannel.open();
             TipcSocketChannel control = TipcSocketChannel.open(TipcServiceAddress.of(controlType, INSTANCE))) {
            topology.subscribe(TipcServiceRange.of(name), TipcTopologyChannel.Mode.FIRST_AND_LAST);
            BlockingQueue<Report> reports = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> readReports(topology, reports), "topology reports");
            reader.setDaemon(true);
            reader.start();
            for (int c = 1; c <= cycles; c++) {
                long[] publish = timed(control, reports, BIND, TipcTopologyEvent.Kind.PUBLISHED);
                long[] withdraw = timed(control, reports, CLOSE, TipcTopologyEvent.Kind.WITHDRAWN);
                Cycle cycle = new Cycle(c, publish[0], publish[1], withdraw[0], withdraw[1], connectMicros(name));
                System.out.printf(Locale.ROOT, "cycle %2d: published, reported after %.2f ms (answer %.2f ms); "
                                + "withdrawn, reported after %.2f ms (answer %.2f ms); connect to the withdrawn name "
                                + "failed in %.2f ms%n", c, cycle.publishReportMicros() / 1e3,
                        cycle.publishAnswerMicros() / 1e3, cycle.withdrawReportMicros() / 1e3,
                        cycle.withdrawAnswerMicros() / 1e3, cycle.connectToWithdrawnMicros() / 1e3);
                done.add(cycle);
            }
        }
        report(out, done);
    }

    /** A topology report and when it arrived ({@link System#nanoTime()}). */
    private record Report(TipcTopologyEvent event, long nanos) {
    }

    /** Stamps each report as it arrives, so that waiting for the control answer does not delay the stamp. */
    private static void readReports(TipcTopologyChannel topology, BlockingQueue<Report> reports) {
        try {
            while (true) {
                TipcTopologyEvent event = topology.receive();
                reports.add(new Report(event, System.nanoTime()));
            }
        } catch (IOException closed) {
            // the run is over
        }
    }

    /** Sends {@code request}; returns microseconds from it to the answer and to the topology report of {@code kind}. */
    private static long[] timed(TipcSocketChannel control, BlockingQueue<Report> reports, byte request,
                                TipcTopologyEvent.Kind kind) throws IOException, InterruptedException {
        long start = System.nanoTime();
        control.writeFully(ByteBuffer.wrap(new byte[]{request}));
        ByteBuffer answer = ByteBuffer.allocate(1);
        while (answer.hasRemaining()) {
            if (control.read(answer) < 0) {
                throw new EOFException("machine 2 closed the control stream");
            }
        }
        long answered = System.nanoTime();
        Report report = reports.poll(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (report == null || report.event().kind() != kind) {
            throw new IOException("expected a " + kind + " report within " + REPORT_TIMEOUT + ", got "
                    + (report == null ? "none" : report.event()));
        }
        return new long[]{(answered - start) / 1000, (report.nanos() - start) / 1000};
    }

    /** How long a connect to {@code name} takes to fail (the name being withdrawn); -1 if it succeeded. */
    private static long connectMicros(TipcServiceAddress name) throws IOException {
        long start = System.nanoTime();
        try (TipcSocketChannel channel = TipcSocketChannel.open()) {
            channel.connect(name);
            return -1;
        } catch (IOException expected) {
            return (System.nanoTime() - start) / 1000;
        }
    }

    private static void report(Path out, List<Cycle> cycles) throws IOException {
        StringBuilder csv = new StringBuilder("cycle,publish_answer_us,publish_report_us,withdraw_answer_us,"
                + "withdraw_report_us,connect_to_withdrawn_us\n");
        for (Cycle c : cycles) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%d%n", c.cycle(), c.publishAnswerMicros(),
                    c.publishReportMicros(), c.withdrawAnswerMicros(), c.withdrawReportMicros(),
                    c.connectToWithdrawnMicros()));
        }
        double[] x = cycles.stream().mapToDouble(Cycle::cycle).toArray();
        XYChart chart = Charts.lines("Topology reports of a name bound and unbound on the other machine",
                "cycle", "ms after the request (upper bound on the report's delay)");
        chart.addSeries("published", x, millis(cycles, Cycle::publishReportMicros));
        chart.addSeries("withdrawn", x, millis(cycles, Cycle::withdrawReportMicros));
        chart.addSeries("connect to withdrawn name fails", x, millis(cycles, Cycle::connectToWithdrawnMicros));
        Charts.save(out, "plot", chart);
        Results.write(out, "topology-latency", csv, summary(cycles));
    }

    static String summary(List<Cycle> cycles) {
        double[] publishUpper = millis(cycles, Cycle::publishReportMicros);
        double[] publishLower = millis(cycles, c -> Math.max(0, c.publishReportMicros() - c.publishAnswerMicros()));
        double[] withdrawUpper = millis(cycles, Cycle::withdrawReportMicros);
        double[] withdrawLower = millis(cycles, c -> Math.max(0, c.withdrawReportMicros() - c.withdrawAnswerMicros()));
        double[] connect = millis(cycles, Cycle::connectToWithdrawnMicros);
        double worstPublish = Arrays.stream(publishUpper).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, """
                        Machine 2 bound a TIPC name and closed its socket again, %d times, each when machine 1 asked \
                        over a control stream; machine 1 subscribed to the name with the topology service and timed \
                        each report from its request. The report's delay after the bind lies between (report - answer) \
                        and (report - request); both are given. Machine 1 also timed a connect to the name right after \
                        each withdrawal: the cost each fetch paid before the routes followed the topology service.

                        | | min | median | 90th percentile | max |
                        |---|---:|---:|---:|---:|
                        %s
                        %s
                        %s
                        %s
                        %s

                        Goal: a republished name brings its host back to TIPC within 1 s. Worst upper bound \
                        here: %.1f ms, so the goal is %s. Without the topology service a host that fell back stayed on \
                        HTTP/TCP for the rest of the task; with it, a withdrawn name sends its host to HTTP/TCP with no \
                        connect attempt at all.
                        """, cycles.size(),
                Stats.percentileRow("published: report - request (ms, upper bound)", publishUpper),
                Stats.percentileRow("published: report - answer (ms, lower bound)", publishLower),
                Stats.percentileRow("withdrawn: report - request (ms, upper bound)", withdrawUpper),
                Stats.percentileRow("withdrawn: report - answer (ms, lower bound)", withdrawLower),
                Stats.percentileRow("connect to the withdrawn name, until it fails (ms)", connect),
                worstPublish, worstPublish <= GOAL_MILLIS ? "met" : "**missed**");
    }

    private static double[] millis(List<Cycle> cycles, ToLongFunction<Cycle> micros) {
        return cycles.stream().mapToDouble(c -> micros.applyAsLong(c) / 1e3).toArray();
    }

    private TopologyLatencyBenchmark() {
    }
}
