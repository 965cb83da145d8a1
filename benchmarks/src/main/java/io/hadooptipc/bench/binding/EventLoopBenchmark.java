package io.hadooptipc.bench.binding;

import io.hadooptipc.bench.common.ChannelIo;
import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.tipc.TipcSelectionKey;
import io.hadooptipc.tipc.TipcSelector;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcSocketOptions;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;
import org.knowm.xchart.CategoryChart;

/**
 * Many concurrent request/response connections against one server, measured side by side
 * in one run: one thread on our epoll loop ({@link TipcSelector}) over TIPC, one thread on
 * the JDK's {@link Selector} over TCP, and a thread per connection over TIPC.
 *
 * <pre>
 *   EventLoopBenchmark server tipc-selector TYPE | server tcp-selector PORT | server tipc-threads TYPE
 *   EventLoopBenchmark run TCP_HOST CONNECTIONS ROUND_TRIPS REPS OUT_DIR
 * </pre>
 *
 * Every request is 64 bytes and the server echoes it, except a request whose first long is
 * {@link #CPU_QUERY}: that one is answered with the server process's CPU time in nanoseconds.
 */
public final class EventLoopBenchmark {
    static final int TIPC_SELECTOR_TYPE = 30011;
    static final int TIPC_THREADS_TYPE = 30012;
    static final int TCP_SELECTOR_PORT = 5011;
    static final int MESSAGE = 64;
    static final long CPU_QUERY = -1;
    /** A select that sees nothing for this long means the run is stuck, not slow. */
    private static final int STALL_MILLIS = 60_000;

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private EventLoopBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("server")) {
            int typeOrPort = Integer.parseInt(args[2]);
            switch (args[1]) {
                case "tipc-selector" -> serveTipcSelector(typeOrPort);
                case "tcp-selector" -> serveTcpSelector(typeOrPort);
                case "tipc-threads" -> serveTipcThreads(typeOrPort);
                default -> usage();
            }
        } else if (args.length == 6 && args[0].equals("run")) {
            new Run(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Path.of(args[5])).execute();
        } else {
            usage();
        }
    }

    private static void usage() {
        System.err.println("usage: EventLoopBenchmark server tipc-selector TYPE | server tcp-selector PORT"
                + " | server tipc-threads TYPE\n"
                + "       EventLoopBenchmark run TCP_HOST CONNECTIONS ROUND_TRIPS REPS OUT_DIR");
        System.exit(2);
    }

    // ---- server side -------------------------------------------------------------------

    /** Turns a complete request in {@code buf} into its answer, ready to write. */
    private static ByteBuffer answer(ByteBuffer buf) {
        buf.flip();
        if (buf.getLong(0) == CPU_QUERY) {
            buf.putLong(0, OS.getProcessCpuTime());
        }
        return buf;
    }

    private static void serveTipcSelector(int type) throws IOException {
        TipcServerSocketChannel server = TipcServerSocketChannel.open().bind(TipcServiceAddress.of(type, 1));
        TipcSelector selector = TipcSelector.open();
        selector.register(server.configureBlocking(false), SelectionKey.OP_ACCEPT, null);
        while (true) {
            selector.select();
            for (Iterator<TipcSelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                TipcSelectionKey key = it.next();
                it.remove();
                if (key.isAcceptable()) {
                    for (TipcSocketChannel c; (c = server.accept()) != null; ) {
                        c.configureBlocking(false).setOption(TipcSocketOptions.NODELAY, true);
                        selector.register(c, SelectionKey.OP_READ, ByteBuffer.allocateDirect(MESSAGE));
                    }
                } else {
                    TipcSocketChannel c = (TipcSocketChannel) key.channel();
                    ByteBuffer buf = (ByteBuffer) key.attachment();
                    if (c.read(buf) < 0) {
                        c.close();
                    } else if (!buf.hasRemaining()) {
                        c.writeFully(answer(buf));
                        buf.clear();
                    }
                }
            }
        }
    }

    private static void serveTcpSelector(int port) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(new InetSocketAddress(port), TipcServerSocketChannel.DEFAULT_BACKLOG);
        Selector selector = Selector.open();
        server.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
        while (true) {
            selector.select();
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                if (key.isAcceptable()) {
                    for (SocketChannel c; (c = server.accept()) != null; ) {
                        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        c.configureBlocking(false);
                        c.register(selector, SelectionKey.OP_READ, ByteBuffer.allocateDirect(MESSAGE));
                    }
                } else {
                    SocketChannel c = (SocketChannel) key.channel();
                    ByteBuffer buf = (ByteBuffer) key.attachment();
                    if (c.read(buf) < 0) {
                        c.close();
                    } else if (!buf.hasRemaining()) {
                        ChannelIo.writeFully(c, answer(buf)); // 64 bytes: the socket takes them at once
                        buf.clear();
                    }
                }
            }
        }
    }

    private static void serveTipcThreads(int type) throws IOException {
        TipcServerSocketChannel server = TipcServerSocketChannel.open().bind(TipcServiceAddress.of(type, 1));
        while (true) {
            TipcSocketChannel c = server.accept();
            c.setOption(TipcSocketOptions.NODELAY, true);
            new Thread(() -> echoUntilClosed(c), "echo-" + c.getRemoteAddress()).start();
        }
    }

    private static void echoUntilClosed(TipcSocketChannel c) {
        try (c) {
            ByteBuffer buf = ByteBuffer.allocateDirect(MESSAGE);
            while (true) {
                while (buf.hasRemaining()) {
                    if (c.read(buf) < 0) {
                        return;
                    }
                }
                c.writeFully(answer(buf));
                buf.clear();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- client side -------------------------------------------------------------------

    /** One connection's part of a round: a request, its echo, the next request, until none are left. */
    private static final class Exchange {
        private final ByteChannel channel;
        private final ByteBuffer buf = ByteBuffer.allocateDirect(MESSAGE); // zeros: never a CPU query
        private int left;

        Exchange(ByteChannel channel) {
            this.channel = channel;
        }

        void start(int roundTrips) throws IOException {
            left = roundTrips;
            send();
        }

        /** Reads what arrived; returns true once the last echo is complete. */
        boolean onReadable() throws IOException {
            if (channel.read(buf) < 0) {
                throw new EOFException("the server closed a connection");
            }
            if (buf.hasRemaining()) { // the echo may arrive in pieces
                return false;
            }
            if (--left == 0) {
                return true;
            }
            send();
            return false;
        }

        private void send() throws IOException {
            ChannelIo.writeFully(channel, buf.clear()); // 64 bytes: the socket takes them at once
            buf.clear();
        }
    }

    /**
     * The client's connections to one server, driven from one selector thread, plus a
     * blocking control connection that asks for the server's CPU time between rounds.
     */
    private abstract static class Fleet implements Closeable {
        static final String STALLED = "stalled: no connection ready for " + STALL_MILLIS + " ms";
        final List<Exchange> exchanges = new ArrayList<>();
        final List<Closeable> channels = new ArrayList<>();
        ByteChannel control;

        /** Waits for readable connections, handles them and returns how many finished their round. */
        abstract int selectFinished() throws IOException;

        /** Every connection does {@code roundTrips} round trips at once; returns the seconds it took. */
        double exchange(int roundTrips) throws IOException {
            long start = System.nanoTime();
            for (Exchange e : exchanges) {
                e.start(roundTrips);
            }
            for (int finished = 0; finished < exchanges.size(); ) {
                finished += selectFinished();
            }
            return (System.nanoTime() - start) / 1e9;
        }

        long serverCpuNanos() throws IOException {
            ByteBuffer buf = ByteBuffer.allocate(MESSAGE).putLong(0, CPU_QUERY);
            ChannelIo.writeFully(control, buf);
            ChannelIo.readFully(control, buf.clear());
            return buf.getLong(0);
        }

        /** A new exchange over {@code channel}, one of this fleet's connections. */
        Exchange exchangeOver(ByteChannel channel) {
            Exchange e = new Exchange(channel);
            exchanges.add(e);
            return e;
        }

        /**
         * Handles the exchanges of the selected keys, emptying the set; returns how many
         * finished their round. Works for both selector APIs: only the key type differs.
         */
        static <K> int finishedAmong(int selected, Set<K> keys, Function<K, Object> attachment) throws IOException {
            if (selected == 0) {
                throw new IOException(STALLED);
            }
            int finished = 0;
            for (Iterator<K> it = keys.iterator(); it.hasNext(); ) {
                if (((Exchange) attachment.apply(it.next())).onReadable()) {
                    finished++;
                }
                it.remove();
            }
            return finished;
        }

        <C extends Closeable> C add(C channel) {
            channels.add(channel);
            return channel;
        }

        @Override
        public void close() throws IOException {
            for (Closeable c : channels) {
                c.close();
            }
        }
    }

    private static final class TipcFleet extends Fleet {
        private final TipcSelector selector = add(TipcSelector.open());

        TipcFleet(int type, int connections) throws IOException {
            TipcServiceAddress server = TipcServiceAddress.of(type, 1);
            control = open(server);
            for (int i = 0; i < connections; i++) {
                TipcSocketChannel c = open(server).configureBlocking(false);
                selector.register(c, SelectionKey.OP_READ, exchangeOver(c));
            }
        }

        private TipcSocketChannel open(TipcServiceAddress server) throws IOException {
            TipcSocketChannel c = add(TipcSocketChannel.open(server));
            c.setOption(TipcSocketOptions.NODELAY, true);
            return c;
        }

        @Override
        int selectFinished() throws IOException {
            return finishedAmong(selector.select(STALL_MILLIS), selector.selectedKeys(), TipcSelectionKey::attachment);
        }
    }

    private static final class TcpFleet extends Fleet {
        private final Selector selector = add(Selector.open());

        TcpFleet(String host, int port, int connections) throws IOException {
            InetSocketAddress server = new InetSocketAddress(host, port);
            control = open(server);
            for (int i = 0; i < connections; i++) {
                SocketChannel c = open(server);
                c.configureBlocking(false).register(selector, SelectionKey.OP_READ, exchangeOver(c));
            }
        }

        private SocketChannel open(InetSocketAddress server) throws IOException {
            SocketChannel c = add(SocketChannel.open(server));
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            return c;
        }

        @Override
        int selectFinished() throws IOException {
            return finishedAmong(selector.select(STALL_MILLIS), selector.selectedKeys(), SelectionKey::attachment);
        }
    }

    // ---- the side-by-side run ------------------------------------------------------------

    private enum Variant {
        TIPC_SELECTOR("(a)", "one thread, TipcSelector", "TIPC", "TipcSelector"),
        TCP_SELECTOR("(b)", "one thread, JDK Selector", "TCP", "JDK Selector"),
        TIPC_THREADS("(c)", "thread per connection, blocking TipcSocketChannel", "TIPC", "TipcSelector");

        final String label;
        final String server;
        final String transport;
        final String client;

        Variant(String label, String server, String transport, String client) {
            this.label = label;
            this.server = server;
            this.transport = transport;
            this.client = client;
        }

        String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private record Sample(Variant variant, int rep, long roundTrips, double seconds, long serverCpuNanos) {
        double roundTripsPerSecond() {
            return roundTrips / seconds;
        }

        double serverCpuMicrosPerRoundTrip() {
            return serverCpuNanos / 1e3 / roundTrips;
        }
    }

    private static final class Run {
        private static final int WARM_UP_ROUNDS = 2;
        private final String tcpHost;
        private final int connections;
        private final int roundTrips;
        private final int reps;
        private final Path out;
        private final List<Sample> samples = new ArrayList<>();

        Run(String tcpHost, int connections, int roundTrips, int reps, Path out) {
            this.tcpHost = tcpHost;
            this.connections = connections;
            this.roundTrips = roundTrips;
            this.reps = reps;
            this.out = out;
        }

        void execute() throws Exception {
            // All connections stay open for the whole run: set-up is not what is measured.
            try (Fleet tipcSelector = new TipcFleet(TIPC_SELECTOR_TYPE, connections);
                    Fleet tcpSelector = new TcpFleet(tcpHost, TCP_SELECTOR_PORT, connections);
                    Fleet tipcThreads = new TipcFleet(TIPC_THREADS_TYPE, connections)) {
                // Negative rounds warm up and are not recorded: with one, the first recorded round
                // still ran slow while the emulated machine compiled.
                for (int rep = -WARM_UP_ROUNDS; rep < reps; rep++) {
                    System.err.printf(rep < 0 ? "warm-up round%n" : "round %d/%d%n", rep + 1, reps);
                    // Interleaved in one round, so drift in the shared machine hits every variant alike.
                    measure(Variant.TIPC_SELECTOR, tipcSelector, rep);
                    measure(Variant.TCP_SELECTOR, tcpSelector, rep);
                    measure(Variant.TIPC_THREADS, tipcThreads, rep);
                }
            }
            report();
        }

        private void measure(Variant variant, Fleet fleet, int rep) throws IOException {
            long cpuBefore = fleet.serverCpuNanos();
            double seconds = fleet.exchange(roundTrips);
            long cpu = fleet.serverCpuNanos() - cpuBefore;
            if (rep >= 0) {
                samples.add(new Sample(variant, rep, (long) connections * roundTrips, seconds, cpu));
            }
        }

        private double median(Variant variant, ToDoubleFunction<Sample> metric) {
            return Stats.median(samples.stream().filter(s -> s.variant == variant).mapToDouble(metric));
        }

        /** The median over rounds of the ratio within a round: the two ran side by side, so drift cancels. */
        private double medianRatio(Variant numerator, Variant denominator, ToDoubleFunction<Sample> metric) {
            return Stats.median(IntStream.range(0, reps).mapToDouble(
                    rep -> metric.applyAsDouble(sample(numerator, rep)) / metric.applyAsDouble(sample(denominator, rep))));
        }

        private Sample sample(Variant variant, int rep) {
            return samples.stream().filter(s -> s.variant == variant && s.rep == rep).findFirst().orElseThrow();
        }

        private void report() throws IOException {
            StringBuilder csv = new StringBuilder(
                    "variant,round,connections,round_trips,seconds,round_trips_per_s,server_cpu_us_per_round_trip\n");
            for (Sample s : samples) {
                csv.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%.6f,%.1f,%.3f%n", s.variant.id(), s.rep,
                        connections, s.roundTrips, s.seconds, s.roundTripsPerSecond(), s.serverCpuMicrosPerRoundTrip()));
            }

            StringBuilder table = new StringBuilder(
                    "| server (n2) | transport | client (n1) | round trips/s | server CPU µs per round trip |\n"
                            + "|---|---|---|---:|---:|\n");
            for (Variant v : Variant.values()) {
                table.append(String.format(Locale.ROOT, "| %s %s | %s | %s | %.0f | %.1f |%n", v.label, v.server,
                        v.transport, v.client, median(v, Sample::roundTripsPerSecond),
                        median(v, Sample::serverCpuMicrosPerRoundTrip)));
            }
            table.append("\n| ratio | round trips/s | server CPU per round trip |\n|---|---:|---:|\n");
            for (Variant other : new Variant[] {Variant.TCP_SELECTOR, Variant.TIPC_THREADS}) {
                table.append(String.format(Locale.ROOT, "| (a)/%s | **%.2f** | %.2f |%n", other.label,
                        medianRatio(Variant.TIPC_SELECTOR, other, Sample::roundTripsPerSecond),
                        medianRatio(Variant.TIPC_SELECTOR, other, Sample::serverCpuMicrosPerRoundTrip)));
            }
            List<String> servers = Arrays.stream(Variant.values()).map(v -> v.label + " " + v.server).toList();
            CategoryChart rates = Charts.bars(connections + " connections, " + MESSAGE + "-byte round trips", "server",
                    "round trips/s (median)");
            rates.addSeries("round trips/s", servers,
                    Arrays.stream(Variant.values()).map(v -> median(v, Sample::roundTripsPerSecond)).toList());
            Charts.save(out, "plot", rates);
            CategoryChart cpu = Charts.bars("Server CPU per round trip", "server", "µs (median)");
            cpu.addSeries("server CPU", servers,
                    Arrays.stream(Variant.values()).map(v -> median(v, Sample::serverCpuMicrosPerRoundTrip)).toList());
            Charts.save(out, "plot-cpu", cpu);
            Results.write(out, "event-loop", csv, String.format(Locale.ROOT, "%d connections open at once, each doing %d round trips of %d bytes"
                            + " per round (one request in flight per connection, all connections active together,"
                            + " the client driving them all from one selector thread); medians of %d interleaved rounds"
                            + " (after %d warm-up rounds); ratios are medians of the ratio within each round. Server"
                            + " CPU: the server JVM's process CPU time over the round, as the server reports it.%n%n",
                            connections, roundTrips, MESSAGE, reps, WARM_UP_ROUNDS)
                    + table);
        }
    }
}
