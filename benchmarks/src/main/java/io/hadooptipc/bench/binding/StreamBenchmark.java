package io.hadooptipc.bench.binding;

import static io.hadooptipc.bench.common.ChannelIo.readFully;
import static io.hadooptipc.bench.common.ChannelIo.writeFully;

import io.hadooptipc.bench.common.Args;
import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import org.knowm.xchart.XYChart;

/**
 * Stream throughput over one connection, TIPC against TCP and our Java binding
 * against C, measured side by side in one run (see benchmarks/README.md).
 *
 * <pre>
 *   StreamBenchmark server tipc TYPE INSTANCE | server tcp PORT
 *   StreamBenchmark run C_CLIENT TCP_HOST SIZES TOTAL REPS OUT_DIR
 * </pre>
 *
 * The protocol is stream_bench.c's: an 8-byte length (host order), that many bytes
 * in writes of the message size, a one-byte answer once all have arrived.
 */
public final class StreamBenchmark {
    static final int C_TIPC_TYPE = 30001;
    static final int JAVA_TIPC_TYPE = 30002;
    static final int C_TCP_PORT = 5001;
    static final int JAVA_TCP_PORT = 5002;

    private StreamBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("server")) {
            serve(args);
        } else if (args.length == 7 && args[0].equals("run")) {
            new Run(args[1], args[2], Args.ints(args[3]), Long.parseLong(args[4]), Integer.parseInt(args[5]),
                    Path.of(args[6])).execute();
        } else {
            System.err.println("usage: StreamBenchmark server tipc TYPE INSTANCE | server tcp PORT\n"
                    + "       StreamBenchmark run C_CLIENT TCP_HOST SIZES TOTAL REPS OUT_DIR");
            System.exit(2);
        }
    }

    // ---- server side -------------------------------------------------------------------

    private static void serve(String[] args) throws IOException {
        // One buffer for every connection, as stream_bench.c's static one: no allocation per transfer.
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        if (args[1].equals("tipc")) {
            TipcServerSocketChannel server = TipcServerSocketChannel.open()
                    .bind(TipcServiceAddress.of(Integer.parseInt(args[2]), Integer.parseInt(args[3])));
            while (true) {
                try (TipcSocketChannel c = server.accept()) {
                    sink(c, buf);
                }
            }
        }
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(new InetSocketAddress(Integer.parseInt(args[2])));
        while (true) {
            try (SocketChannel c = server.accept()) {
                sink(c, buf);
            }
        }
    }

    /** Reads the announced number of bytes into {@code buf} and answers one byte. */
    static void sink(ByteChannel c, ByteBuffer buf) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder());
        readFully(c, header);
        long remaining = header.flip().getLong();
        while (remaining > 0) {
            buf.clear().limit((int) Math.min(buf.capacity(), remaining));
            int n = c.read(buf);
            if (n < 0) {
                throw new IOException("stream ended with " + remaining + " bytes to come");
            }
            remaining -= n;
        }
        writeFully(c, ByteBuffer.wrap(new byte[] {'k'}));
    }

    // ---- client side -------------------------------------------------------------------

    /** Sends {@code total} bytes in writes of {@code size}; returns seconds until the answer. */
    static double send(ByteChannel c, int size, long total) throws IOException {
        ByteBuffer data = ByteBuffer.allocateDirect(size);
        long start = System.nanoTime();
        writeFully(c, ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder()).putLong(total).flip());
        for (long sent = 0; sent < total; sent += size) {
            writeFully(c, data.clear().limit((int) Math.min(size, total - sent)));
        }
        readFully(c, ByteBuffer.allocate(1));
        return (System.nanoTime() - start) / 1e9;
    }

    /** Sends a file with sendfile(2) or through a buffer; returns seconds until the answer. */
    static double sendFile(TipcSocketChannel c, Path file, boolean zeroCopy) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r"); FileChannel in = raf.getChannel()) {
            long total = in.size();
            long start = System.nanoTime();
            writeFully(c, ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder()).putLong(total).flip());
            if (zeroCopy) {
                for (long sent = 0; sent < total; ) {
                    sent += c.transferFrom(raf.getFD(), sent, total - sent);
                }
            } else {
                ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
                while (in.read(buf.clear()) > 0) {
                    writeFully(c, buf.flip());
                }
            }
            readFully(c, ByteBuffer.allocate(1));
            return (System.nanoTime() - start) / 1e9;
        }
    }

    // ---- the side-by-side run ------------------------------------------------------------

    private record Sample(String variant, int size, int rep, long bytes, double seconds) {
        double mibPerSecond() {
            return bytes / seconds / (1 << 20);
        }
    }

    private static final class Run {
        private final String cClient;
        private final String tcpHost;
        private final int[] sizes;
        private final long total;
        private final int reps;
        private final Path out;
        private final List<Sample> samples = new ArrayList<>();

        Run(String cClient, String tcpHost, int[] sizes, long total, int reps, Path out) {
            this.cClient = cClient;
            this.tcpHost = tcpHost;
            this.sizes = sizes;
            this.total = total;
            this.reps = reps;
            this.out = out;
        }

        void execute() throws Exception {
            Path file = Files.createTempFile("stream-bench", ".bin");
            byte[] content = new byte[(int) Math.min(total, 256L << 20)];
            new Random(1).nextBytes(content);
            Files.write(file, content);
            try {
                for (int size : sizes) { // warm-up, not recorded: JIT and connection set-up paths
                    measure(size, -1);
                }
                measureFile(file, -1);
                for (int rep = 0; rep < reps; rep++) {
                    System.err.printf("round %d/%d%n", rep + 1, reps);
                    for (int size : sizes) {
                        measure(size, rep);
                    }
                    measureFile(file, rep);
                }
            } finally {
                Files.delete(file);
            }
            report();
        }

        private void measure(int size, int rep) throws Exception {
            // Interleaved in one round, so drift in the shared machine hits every variant alike;
            // the order flips every round, so neither side always runs right after the other.
            List<Callable<Double>> variants = new ArrayList<>(List.of(
                    () -> record(rep, "c-tipc", size, cClient("tipc", String.valueOf(C_TIPC_TYPE), "1", size)),
                    () -> {
                        try (TipcSocketChannel c = TipcSocketChannel.open(TipcServiceAddress.of(JAVA_TIPC_TYPE, 1))) {
                            return record(rep, "java-tipc", size, send(c, size, total));
                        }
                    },
                    () -> {
                        try (SocketChannel c = SocketChannel.open(new InetSocketAddress(tcpHost, JAVA_TCP_PORT))) {
                            return record(rep, "java-tcp", size, send(c, size, total));
                        }
                    },
                    () -> record(rep, "c-tcp", size, cClient("tcp", tcpHost, String.valueOf(C_TCP_PORT), size))));
            if (rep % 2 == 1) {
                Collections.reverse(variants);
            }
            for (Callable<Double> variant : variants) {
                variant.call();
            }
        }

        private void measureFile(Path file, int rep) throws IOException {
            long bytes = Files.size(file);
            for (boolean zeroCopy : rep % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                try (TipcSocketChannel c = TipcSocketChannel.open(TipcServiceAddress.of(JAVA_TIPC_TYPE, 1))) {
                    double s = sendFile(c, file, zeroCopy);
                    if (rep >= 0) {
                        samples.add(new Sample(zeroCopy ? "java-tipc-sendfile" : "java-tipc-file-copy", 0, rep, bytes, s));
                    }
                }
            }
        }

        private double cClient(String transport, String a, String b, int size) throws Exception {
            Process p = new ProcessBuilder(cClient, "client", transport, a, b, String.valueOf(size), String.valueOf(total))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String line = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (p.waitFor() != 0) {
                throw new IOException("C client failed (exit " + p.exitValue() + ")");
            }
            return Double.parseDouble(line.split(" ")[1]);
        }

        private double record(int rep, String variant, int size, double seconds) {
            if (rep >= 0) {
                samples.add(new Sample(variant, size, rep, total, seconds));
            }
            return seconds;
        }

        private double median(String variant, int size) {
            return Stats.median(samples.stream().filter(s -> s.variant.equals(variant) && s.size == size)
                    .mapToDouble(Sample::mibPerSecond));
        }

        /**
         * The median over rounds of {@code a}'s rate divided by {@code b}'s in the same round:
         * the machine's drift between rounds cancels out of each quotient.
         */
        private double ratio(String a, String b, int size) {
            return Stats.median(IntStream.range(0, reps).mapToDouble(rep -> rate(a, size, rep) / rate(b, size, rep)));
        }

        private double rate(String variant, int size, int rep) {
            return samples.stream().filter(s -> s.variant.equals(variant) && s.size == size && s.rep == rep)
                    .findFirst().orElseThrow().mibPerSecond();
        }

        private void report() throws IOException {
            StringBuilder csv = new StringBuilder("variant,message_bytes,round,bytes,seconds,mib_per_s\n");
            for (Sample s : samples) {
                csv.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%.6f,%.2f%n", s.variant, s.size, s.rep, s.bytes,
                        s.seconds, s.mibPerSecond()));
            }

            StringBuilder table = new StringBuilder(
                    "| message | C TIPC MiB/s | Java TIPC MiB/s | Java/C (TIPC) | Java TCP MiB/s | C TCP MiB/s | TIPC/TCP (Java) | TIPC/TCP (C) |\n"
                            + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (int size : sizes) {
                table.append(String.format(Locale.ROOT, "| %d B | %.0f | %.0f | **%.3f** | %.0f | %.0f | %.3f | %.3f |%n",
                        size, median("c-tipc", size), median("java-tipc", size), ratio("java-tipc", "c-tipc", size),
                        median("java-tcp", size), median("c-tcp", size), ratio("java-tipc", "java-tcp", size),
                        ratio("c-tipc", "c-tcp", size)));
            }
            table.append(String.format(Locale.ROOT,
                    "%nFile to TIPC socket (%d MiB, page-cached): read+write %.0f MiB/s, sendfile %.0f MiB/s,"
                            + " sendfile/copy **%.3f**%n", Math.min(total, 256L << 20) >> 20,
                    median("java-tipc-file-copy", 0), median("java-tipc-sendfile", 0),
                    ratio("java-tipc-sendfile", "java-tipc-file-copy", 0)));
            XYChart rates = Charts.lines("One stream n1 -> n2", "message size (bytes)", "MiB/s (median)");
            rates.getStyler().setXAxisLogarithmic(true);
            double[] x = Arrays.stream(sizes).asDoubleStream().toArray();
            for (String variant : new String[] {"c-tipc", "java-tipc", "c-tcp", "java-tcp"}) {
                rates.addSeries(variant, x, Arrays.stream(sizes).mapToDouble(size -> median(variant, size)).toArray());
            }
            Charts.save(out, "plot", rates);
            Results.write(out, "stream-throughput", csv, String.format("%d MiB per transfer; rates are medians of %d interleaved rounds (after one"
                            + " warm-up round), ratios medians of the ratio within each round.%n%n", total >> 20, reps)
                    + table);
        }
    }
}
