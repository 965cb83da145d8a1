package io.hadooptipc.bench.seeds;

import io.hadooptipc.bench.common.ChannelIo;
import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Machine;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.seeds.BandwidthShare.Point;
import io.hadooptipc.bench.seeds.BandwidthShare.Run;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcSocketOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Seed 004's experiment: two groups of parallel connections, A with 64 and B with 2-64, send
 * at once over one rate-limited link; the share each gets is compared with the model
 * B·A/(V+A) ({@link BandwidthShare}). TCP and TIPC, one sender process for both groups.
 *
 * <pre>
 *   ParallelSocketsBenchmark sink TRANSPORTS READY_FILE
 *   ParallelSocketsBenchmark measure WHERE TRANSPORTS SINK_HOST LIMIT_MBIT A B_COUNTS WARMUP_S WINDOW_S ROUNDS RUNS_CSV
 *   ParallelSocketsBenchmark report RUNS_CSV OUT_DIR
 * </pre>
 *
 * The sink counts the bytes of each group (a connection's first byte names its group) and
 * answers, on a TCP control port, its clock and both counts: rates are taken at the receiver.
 * TRANSPORTS is "tcp", "tipc" or both, comma-separated.
 * {@code measure} appends one line per run to RUNS_CSV and writes WHERE-machine.txt beside it;
 * {@code report} turns the runs of every setting into results.csv, plots and summary.md.
 */
public final class ParallelSocketsBenchmark {
    static final int TIPC_TYPE = 30041;
    static final int TCP_PORT = 5041;
    static final int CONTROL_PORT = 5042;
    private static final int WRITE_SIZE = 32 << 10;
    private static final String[] GROUPS = {"A", "B"};
    /**
     * The seed's §3.2 (fast Ethernet over KOREN, one host per group): the network utilisation of
     * the new group's host m0 and of the existing group's x1 (SC64) per connection count of m0.
     * Its share is m0 / (x1 + m0); the two do not add up to 100 % in the seed.
     */
    private static final Map<Integer, double[]> SEED_UTILISATION = Map.of(2, new double[] {96, 3},
            16, new double[] {76, 28}, 32, new double[] {58, 40}, 64, new double[] {48, 50});

    /**
     * Why TIPC's groups may not fill the port: unlike TCP it has no congestion control per
     * connection; all connections between two nodes share one link, whose window bounds them.
     * Formatted with the window's time at the limit.
     */
    private static final String TIPC_LINK_NOTE = """
            TIPC runs all connections between two nodes over one link, with no congestion control per
            connection: each socket's flow control only bounds what its peer has not yet read. The link
            keeps at most its window of packets unacknowledged (since Linux 5.6 a variable window up to
            a maximum, 50 packets by default, `tipc link get win link NAME`; "Window" in the link
            counters of the "Measured machines" line at the top). 50 full frames take %.0f ms at this
            limit: the link fills the port only while a round trip without queueing is shorter, and a
            longer (emulated) round trip caps TIPC at window/RTT. A packet lost on the way is repaired by the link (NACK, retransmission)
            for every connection on it at once. Those counters say how often senders found the
            window full ("Congestion link") and how many packets were sent again ("retrans").

            """;

    private ParallelSocketsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("sink")) {
            sink(transports(args[1]), Path.of(args[2]));
        } else if (args.length == 11 && args[0].equals("measure")) {
            new Measurement(args[1], transports(args[2]), args[3],
                    Double.parseDouble(args[4]), Integer.parseInt(args[5]),
                    Arrays.stream(args[6].split(",")).mapToInt(Integer::parseInt).toArray(),
                    Double.parseDouble(args[7]), Double.parseDouble(args[8]), Integer.parseInt(args[9]),
                    Path.of(args[10])).execute();
        } else if (args.length == 3 && args[0].equals("report")) {
            report(Path.of(args[1]), Path.of(args[2]));
        } else {
            System.err.println("usage: ParallelSocketsBenchmark sink TRANSPORTS READY_FILE\n"
                    + "       ParallelSocketsBenchmark measure WHERE TRANSPORTS SINK_HOST LIMIT_MBIT A B_COUNTS"
                    + " WARMUP_S WINDOW_S ROUNDS RUNS_CSV\n"
                    + "       ParallelSocketsBenchmark report RUNS_CSV OUT_DIR");
            System.exit(2);
        }
    }

    // ---- receiving side ------------------------------------------------------------------

    private static List<Transport> transports(String csv) {
        return Arrays.stream(csv.split(",")).map(Transport::parse).toList();
    }

    /** Receives on {@code transports} and the control port; creates {@code ready} once every one listens. */
    private static void sink(List<Transport> transports, Path ready) throws IOException {
        LongAdder[] received = {new LongAdder(), new LongAdder()};
        if (transports.contains(Transport.TCP)) {
            ServerSocketChannel tcp = listen(TCP_PORT);
            daemon("accept-tcp", () -> {
                while (true) {
                    SocketChannel c = tcp.accept();
                    daemon("drain-" + c.getRemoteAddress(), () -> drain(c, received));
                }
            });
        }
        if (transports.contains(Transport.TIPC)) {
            TipcServerSocketChannel tipc = TipcServerSocketChannel.open().bind(TipcServiceAddress.of(TIPC_TYPE, 1));
            daemon("accept-tipc", () -> {
                while (true) {
                    TipcSocketChannel c = tipc.accept();
                    daemon("drain-" + c.getRemoteAddress(), () -> drain(c, received));
                }
            });
        }
        ServerSocketChannel control = listen(CONTROL_PORT);
        Files.createFile(ready); // the script waits for it, knowing no port or service type
        while (true) {
            try (SocketChannel c = control.accept()) {
                ByteBuffer request = ByteBuffer.allocate(1);
                ByteBuffer answer = ByteBuffer.allocate(3 * Long.BYTES);
                while (c.read(request.clear()) > 0) {
                    answer.clear().putLong(System.nanoTime()).putLong(received[0].sum()).putLong(received[1].sum());
                    ChannelIo.writeFully(c, answer.flip());
                }
            }
        }
    }

    private static ServerSocketChannel listen(int port) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        return server.bind(new InetSocketAddress(port), TipcServerSocketChannel.DEFAULT_BACKLOG);
    }

    /**
     * Counts a connection's bytes for the group its first byte names, until the sender closes
     * it: a TCP sender stops by resetting its connections, which ends the read with an error.
     */
    private static void drain(ByteChannel c, LongAdder[] received) throws IOException {
        try (c) {
            ByteBuffer group = ByteBuffer.allocate(1);
            ChannelIo.readFully(c, group);
            LongAdder counter = received[group.get(0)];
            ByteBuffer buf = ByteBuffer.allocateDirect(WRITE_SIZE);
            try {
                for (int n; (n = c.read(buf.clear())) >= 0; ) {
                    counter.add(n);
                }
            } catch (SocketException reset) {
                // the sender's reset: its bytes so far are counted
            }
        }
    }

    private interface IoTask {
        void run() throws IOException;
    }

    private static Thread daemon(String name, IoTask task) {
        Thread t = new Thread(() -> {
            try {
                task.run();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    // ---- sending side --------------------------------------------------------------------

    private enum Transport {
        TCP, TIPC;

        static Transport parse(String name) {
            return valueOf(name.toUpperCase(Locale.ROOT));
        }

        ByteChannel connect(String sinkHost) throws IOException {
            if (this == TCP) {
                return SocketChannel.open(new InetSocketAddress(sinkHost, TCP_PORT));
            }
            // A TIPC connect completes only when the server accepts, which the emulated guest can be slow to do.
            TipcSocketChannel c = TipcSocketChannel.open();
            c.setOption(TipcSocketOptions.CONNECT_TIMEOUT, 60_000);
            c.connect(TipcServiceAddress.of(TIPC_TYPE, 1));
            return c;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A group of connections, each written to as fast as the link takes it by a thread of its own.
     * All are connected before any sends, so the groups start at once, and no connection request
     * queues behind a full link (between the testbed machines at 6 Mbit/s, 64 TIPC connections
     * took 162 s to set up that way, 1 s on an idle link).
     */
    private static final class Group {
        private final String name;
        private final List<ByteChannel> channels = new ArrayList<>();
        private final List<Thread> writers = new ArrayList<>();
        private volatile boolean stopping;

        Group(Transport transport, String sinkHost, int id, int connections) throws IOException {
            name = GROUPS[id];
            for (int i = 0; i < connections; i++) {
                ByteChannel c = transport.connect(sinkHost);
                channels.add(c);
                ChannelIo.writeFully(c, ByteBuffer.wrap(new byte[] {(byte) id}));
            }
        }

        void start() {
            for (ByteChannel c : channels) {
                writers.add(daemon("send-" + name + writers.size(), () -> {
                    ByteBuffer data = ByteBuffer.allocateDirect(WRITE_SIZE);
                    try {
                        while (!stopping) {
                            ChannelIo.writeFully(c, data.clear());
                        }
                    } catch (IOException e) {
                        if (!stopping) {
                            throw e;
                        }
                    }
                }));
            }
        }

        /**
         * Closes the connections under their writers, which wake from a blocked write (both
         * channels' close does that), and waits for them to end. A TCP connection is reset, so
         * its unsent bytes are dropped: waiting for them let one flow backed off by losses at
         * the limit hold a measurement for 563 s.
         */
        void stop() throws IOException, InterruptedException {
            stopping = true;
            for (ByteChannel c : channels) {
                if (c instanceof SocketChannel tcp) {
                    tcp.setOption(StandardSocketOptions.SO_LINGER, 0);
                }
                c.close();
            }
            for (Thread t : writers) {
                t.join();
            }
        }
    }

    /** Seconds spent in each phase of a measurement, for its progress line: where a run's minutes go. */
    private static final class Phases {
        private final StringBuilder spent = new StringBuilder();
        private long since = System.nanoTime();

        void end(String phase) {
            long now = System.nanoTime();
            spent.append(spent.isEmpty() ? "" : ", ")
                    .append(String.format(Locale.ROOT, "%s %.1f s", phase, (now - since) / 1e9));
            since = now;
        }

        @Override
        public String toString() {
            return spent.toString();
        }
    }

    /** The sink's clock and byte counts at one moment. */
    private record Snapshot(long nanos, long a, long b) {
    }

    private record Measurement(String where, List<Transport> transports, String sinkHost, double limitMbit,
            int aConnections, int[] bCounts, double warmupSeconds, double windowSeconds, int rounds, Path runsCsv) {
        void execute() throws Exception {
            Files.createDirectories(runsCsv.getParent());
            Files.writeString(runsCsv.resolveSibling(where + "-machine.txt"), Machine.describe());
            if (!Files.exists(runsCsv)) {
                Files.writeString(runsCsv, Run.HEADER + "\n");
            }
            try (SocketChannel control = SocketChannel.open(new InetSocketAddress(sinkHost, CONTROL_PORT))) {
                for (int round = 1; round <= rounds; round++) {
                    // Group A alone measures the link first; then B joins with each count in turn.
                    for (int b : IntStream.concat(IntStream.of(0), Arrays.stream(bCounts)).toArray()) {
                        for (Transport transport : transports) {
                            Phases phases = new Phases();
                            Run run = measure(control, transport, round, b, phases);
                            Files.writeString(runsCsv, run.toCsv() + "\n", StandardOpenOption.APPEND);
                            System.out.printf(Locale.ROOT, "%s %s round %d: A %d + B %d connections: %.2f + %.2f Mbit/s"
                                    + " (%.0f%% of the %.0f Mbit/s limit), B's share %.3f (model %.3f); %s%n", where,
                                    transport, round, aConnections, b, run.aMbit(), run.bMbit(),
                                    100 * run.totalMbit() / limitMbit, limitMbit, run.bMbit() / run.totalMbit(),
                                    BandwidthShare.modelShare(b, aConnections), phases);
                        }
                    }
                }
            }
        }

        private Run measure(SocketChannel control, Transport transport, int round, int b, Phases phases)
                throws Exception {
            awaitQuiet(control);
            phases.end("quiet");
            Group a = new Group(transport, sinkHost, 0, aConnections);
            Group bGroup = new Group(transport, sinkHost, 1, b);
            phases.end("connect");
            a.start();
            bGroup.start();
            Thread.sleep((long) (warmupSeconds * 1000));
            Snapshot start = snapshot(control);
            Thread.sleep((long) (windowSeconds * 1000));
            Snapshot end = snapshot(control);
            phases.end("send");
            a.stop();
            bGroup.stop();
            phases.end("stop");
            double seconds = (end.nanos() - start.nanos()) / 1e9;
            return new Run(where, transport.toString(), round, limitMbit, aConnections, b,
                    mbit(end.a() - start.a(), seconds), mbit(end.b() - start.b(), seconds));
        }

        private static double mbit(long bytes, double seconds) {
            return bytes * 8 / seconds / 1e6;
        }

        /** Waits until the last run's queued bytes have drained, so that they count for no one. */
        private static void awaitQuiet(SocketChannel control) throws Exception {
            Snapshot last = snapshot(control);
            for (int i = 0; i < 240; i++) {
                Thread.sleep(250);
                Snapshot now = snapshot(control);
                if (now.a == last.a && now.b == last.b) {
                    return;
                }
                last = now;
            }
            throw new IOException("the sink still receives 60 s after the senders stopped");
        }

        private static Snapshot snapshot(SocketChannel control) throws IOException {
            ChannelIo.writeFully(control, ByteBuffer.allocate(1));
            ByteBuffer answer = ByteBuffer.allocate(3 * Long.BYTES);
            ChannelIo.readFully(control, answer);
            return new Snapshot(answer.getLong(0), answer.getLong(8), answer.getLong(16));
        }
    }

    // ---- report --------------------------------------------------------------------------

    private static void report(Path runsCsv, Path out) throws IOException {
        List<Run> runs = Files.readAllLines(runsCsv).stream().skip(1).map(Run::parse).toList();
        List<Point> points = BandwidthShare.points(runs);
        Map<String, List<Point>> bySeries = points.stream()
                .collect(Collectors.groupingBy(Point::series, TreeMap::new, Collectors.toList()));
        int aConnections = points.get(0).aConnections();

        XYChart shares = Charts.lines("Share of the link taken by group B beside group A's " + aConnections
                + " connections", "connections of group B", "B's share of the bytes (%)");
        shares.getStyler().setXAxisLogarithmic(true);
        double[] dense = IntStream.rangeClosed(2, 64).asDoubleStream().toArray();
        shares.addSeries("model B·A/(V+A)", dense,
                Arrays.stream(dense).map(b -> 100 * BandwidthShare.modelShare((int) b, aConnections)).toArray())
                .setMarker(SeriesMarkers.NONE);
        int[] seedCounts = SEED_UTILISATION.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        shares.addSeries("seed (KOREN, 2 hosts)", Arrays.stream(seedCounts).asDoubleStream().toArray(),
                Arrays.stream(seedCounts).mapToDouble(b -> 100 * seedShare(b)).toArray())
                .setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        XYChart errors = Charts.lines("Error of the predicted bandwidth of group B (BNA)", "connections of group B",
                "(measured - BNA) / BNA (%)");
        errors.getStyler().setXAxisLogarithmic(true);
        bySeries.forEach((series, ps) -> {
            double[] counts = ps.stream().mapToDouble(Point::bConnections).toArray();
            shares.addSeries(series, counts, ps.stream().mapToDouble(p -> 100 * p.share()).toArray());
            errors.addSeries(series, counts, ps.stream().mapToDouble(p -> 100 * p.relativeError()).toArray());
        });
        Charts.save(out, "plot", shares);
        Charts.save(out, "plot-error", errors);

        StringBuilder csv = new StringBuilder(Point.HEADER).append('\n');
        points.forEach(p -> csv.append(p.toCsv()).append('\n'));
        Results.write(out, "parallel-sockets", csv, summary(runsCsv, bySeries, aConnections));
    }

    private static double seedShare(int b) {
        double[] utilisation = SEED_UTILISATION.get(b);
        return utilisation[1] / (utilisation[0] + utilisation[1]);
    }

    private static double seedShareError(int b, int aConnections) {
        return seedShare(b) - BandwidthShare.modelShare(b, aConnections);
    }

    private static String summary(Path runsCsv, Map<String, List<Point>> bySeries, int aConnections)
            throws IOException {
        StringBuilder s = new StringBuilder();
        try (var machines = Files.list(runsCsv.getParent())) {
            for (Path m : machines.filter(p -> p.toString().endsWith("-machine.txt")).sorted().toList()) {
                s.append("Measured ").append(m.getFileName().toString().replace("-machine.txt", "")).append(": ")
                        .append(Files.readString(m).strip().replaceFirst("^Machine: ", "")).append("\n\n");
            }
        }
        s.append(String.format(Locale.ROOT, """
                Group A (%d connections) and group B (2-64) send at once through one rate-limited link; the
                sink counts each group's bytes over a steady window after a warm-up. Each round first runs
                group A alone: its rate is the link bandwidth B of that round, and BNA = B·A/(V+A) with
                A = B's connections and V = %d is the predicted rate of group B. Medians over rounds; errors
                are measured minus model (share error in percentage points of the link). Rates count
                payload; the limit counts Ethernet frames, of which TCP payload is 1448 of 1514 bytes
                (96%%), and TIPC's about as much: that is a full link.

                """, aConnections, aConnections));
        bySeries.forEach((series, ps) -> {
            Point first = ps.get(0);
            s.append(String.format(Locale.ROOT, "### %s, limit %.0f Mbit/s, %d rounds%n%n", series,
                    first.limitMbit(), first.rounds()));
            double linkUse = first.capacityMbit() / first.limitMbit();
            s.append(String.format(Locale.ROOT, "Link bandwidth B (group A alone): %.2f Mbit/s, %.0f%% of the "
                    + "limit%s.%n%n", first.capacityMbit(), 100 * linkUse, linkUse > 1.02
                            ? ": more than the limiter passes, so this traffic did not cross it"
                            : linkUse < 0.9 ? ": this traffic did not fill the limiter; the limiter or something before it"
                                    + " held it back" : ""));
            if (first.transport().equals(Transport.TIPC.toString())) {
                s.append(String.format(Locale.ROOT, TIPC_LINK_NOTE, 50 * 1514 * 8 / (first.limitMbit() * 1e3)));
            }
            s.append("| B's connections | total, % of limit | B's share | model | share error (pp) "
                    + "| B's rate | BNA | error | relative error | A's rate | IB |\n");
            s.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Point p : ps) {
                s.append(String.format(Locale.ROOT, "| %d | %.0f%% | %.1f%% | %.1f%% | %+.1f | %.2f | %.2f | %+.2f "
                        + "| %+.0f%% | %.2f | %.2f |%n", p.bConnections(), 100 * p.utilisation(), 100 * p.share(),
                        100 * p.modelShare(), 100 * p.shareError(), p.bMbit(), p.bnaMbit(), p.errorMbit(),
                        100 * p.relativeError(), p.aMbit(), p.ibMbit()));
            }
            s.append(String.format(Locale.ROOT, "%nMean absolute share error %.1f pp; largest relative error of "
                    + "BNA %+.0f%%.%n%n", 100 * ps.stream().mapToDouble(p -> Math.abs(p.shareError())).average()
                            .orElseThrow(),
                    100 * ps.stream().map(Point::relativeError).max((x, y) -> Double.compare(Math.abs(x), Math.abs(y)))
                            .orElseThrow()));
        });
        s.append("### The seed's figures (its §3.2, for comparison; not measured here)\n\n")
                .append("| B's connections | seed's share of B | model | share error (pp) |\n|---:|---:|---:|---:|\n");
        SEED_UTILISATION.keySet().stream().sorted().forEach(b -> s.append(String.format(Locale.ROOT,
                "| %d | %.1f%% | %.1f%% | %+.1f |%n", b, 100 * seedShare(b),
                100 * BandwidthShare.modelShare(b, aConnections), 100 * seedShareError(b, aConnections))));
        s.append(String.format(Locale.ROOT, "%nThe seed's mean absolute share error: %.1f pp.%n",
                100 * SEED_UTILISATION.keySet().stream().mapToDouble(b -> Math.abs(seedShareError(b, aConnections)))
                        .average().orElseThrow()));
        return s.toString();
    }
}
