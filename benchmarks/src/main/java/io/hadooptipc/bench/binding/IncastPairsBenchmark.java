package io.hadooptipc.bench.binding;

import io.hadooptipc.bench.common.Args;
import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.IncastReceiver;
import io.hadooptipc.bench.common.IncastSenders;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import java.awt.Color;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Java receivers against the C receiver in incast, round by round: the same rounds as {@code IncastBenchmark}'s
 * (one receiver asks N senders at once for a partition each and waits for the last byte), but a C receiver and a
 * Java receiver hold their connections to the same senders side by side and take turns, one round each, so each
 * pair of rounds meets the same state of the emulated machines. incast's blocks of 100 rounds spread from half to
 * twice their median under emulation; pairs resolve a few percent.
 *
 * <pre>
 *   IncastPairsBenchmark run C_RECEIVER ADDRESS_PREFIX SENDER_MACHINES SENDERS SIZES PAIRS BLOCKS OUT_DIR
 * </pre>
 *
 * SENDER_MACHINES, SENDERS and SIZES as for {@code IncastBenchmark}; per transport (TIPC: our binding, TCP: the
 * JDK's selector) and point, PAIRS pairs of rounds in BLOCKS blocks, each block with new connections and the two
 * transports' blocks alternating.
 */
public final class IncastPairsBenchmark {
    private static final List<String> TRANSPORTS = List.of("tipc", "tcp");
    /** The goal: the Java receiver's rate within this share of the C receiver's. */
    private static final double GOAL = 0.05;

    private IncastPairsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9 || !args[0].equals("run")) {
            System.err.println("usage: IncastPairsBenchmark run C_RECEIVER ADDRESS_PREFIX SENDER_MACHINES SENDERS SIZES"
                    + " PAIRS BLOCKS OUT_DIR");
            System.exit(2);
        }
        new Run(args[1], args[2], Args.ints(args[3]), Args.ints(args[4]),
                Args.ints(args[5]), Integer.parseInt(args[6]), Integer.parseInt(args[7]), Path.of(args[8]))
                .execute();
    }

    /** One pair of rounds: each receiver's seconds, and whether C's round went first. */
    record Pair(String transport, int senders, int size, int block, int index, boolean cFirst, double cSeconds,
            double javaSeconds) {
        /** The Java receiver's rate over the C receiver's in this pair. */
        double javaOverC() {
            return cSeconds / javaSeconds;
        }
    }

    /** incast_bench.c's receiver in its turn-taking mode: a round for every byte written to it, its seconds read back. */
    private static final class CReceiver implements Closeable {
        private final Process process;
        private final OutputStream turns;
        private final BufferedReader seconds;

        CReceiver(String command, String transport, int size, List<String> peers) throws IOException {
            List<String> args = new ArrayList<>(List.of(command, "receiver", transport, "0", String.valueOf(size), "0"));
            args.addAll(peers);
            process = new ProcessBuilder(args).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            turns = process.getOutputStream();
            seconds = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        }

        double round() throws IOException {
            turns.write('r');
            turns.flush();
            String line = seconds.readLine();
            if (line == null) {
                throw new IOException("C receiver ended before its round (exit " + exitCode() + ")");
            }
            return Double.parseDouble(line);
        }

        /** Ends the receiver (its stdin closed) and checks that it ended well. */
        @Override
        public void close() throws IOException {
            turns.close();
            seconds.readLine(); // its cpu line
            int exit = exitCode();
            if (exit != 0) {
                throw new IOException("C receiver failed (exit " + exit + ")");
            }
        }

        private int exitCode() throws IOException {
            try {
                return process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for the C receiver", e);
            }
        }
    }

    private static final class Run {
        private final String cReceiver;
        private final String addressPrefix;
        private final int[] senderNodes;
        private final int[] senderCounts;
        private final int[] sizes;
        private final int pairs;
        private final int blocks;
        private final Path out;
        private final List<Pair> results = new ArrayList<>();

        Run(String cReceiver, String addressPrefix, int[] senderNodes, int[] senderCounts, int[] sizes, int pairs,
                int blocks, Path out) {
            this.cReceiver = cReceiver;
            this.addressPrefix = addressPrefix;
            this.senderNodes = senderNodes;
            this.senderCounts = senderCounts;
            this.sizes = sizes;
            this.pairs = pairs;
            this.blocks = blocks;
            this.out = out;
        }

        void execute() throws Exception {
            int maxSenders = Arrays.stream(senderCounts).max().orElseThrow();
            for (String transport : TRANSPORTS) { // warm-up, not recorded: the Java receivers' JIT, the senders' forks
                block(transport, maxSenders, sizes[0], 0, IncastReceiver.JIT_WARM_UP_ROUNDS);
            }
            for (int senders : senderCounts) {
                for (int size : sizes) {
                    System.err.printf("pairs: 1:%d, %d-byte partitions%n", senders, size);
                    for (int b = 0; b < blocks; b++) {
                        for (int t = 0; t < TRANSPORTS.size(); t++) {
                            results.addAll(block(TRANSPORTS.get((b + t) % TRANSPORTS.size()), senders, size, b,
                                    pairs / blocks));
                        }
                    }
                }
            }
            report();
        }

        /** A block: both receivers connected anew, then COUNT pairs, C first in every other pair. */
        private List<Pair> block(String transport, int senders, int size, int index, int count) throws IOException {
            int[] nodes = IncastSenders.connectionNodes(senders, senderNodes);
            List<Pair> block = new ArrayList<>();
            try (CReceiver c = new CReceiver(cReceiver, transport, size,
                    IncastSenders.cPeers(transport, addressPrefix, nodes));
                    IncastReceiver java = transport.equals("tipc") ? IncastReceiver.tipc(IncastSenders.TIPC_TYPE, nodes)
                            : IncastReceiver.tcp(addressPrefix, IncastSenders.TCP_PORT, nodes)) {
                for (int p = 0; p < count; p++) {
                    boolean cFirst = (p + index) % 2 == 0;
                    double first = cFirst ? c.round() : java.round(size);
                    double second = cFirst ? java.round(size) : c.round();
                    block.add(new Pair(transport, senders, size, index, p, cFirst, cFirst ? first : second,
                            cFirst ? second : first));
                }
            }
            return block;
        }

        /**
         * Order-balanced Java/C of a point's blocks: every two consecutive pairs of a block (C first, then Java first,
         * or the other way) as one sample, each receiver's two round times summed. The receiver that goes second in a
         * pair can be markedly slower (its round starts as the senders' machines finish the first), so a single pair's
         * ratio says as much about who went first as about the receivers; over two pairs each went first once.
         */
        private double[] balancedRatios(String transport, int senders, int size, IntPredicate blockIs) {
            List<Pair> point = pairsOf(transport, senders, size).filter(p -> blockIs.test(p.block)).toList();
            return IntStream.range(0, point.size() / 2).filter(k -> point.get(2 * k).block == point.get(2 * k + 1).block)
                    .mapToDouble(k -> {
                        Pair a = point.get(2 * k);
                        Pair b = point.get(2 * k + 1);
                        return (a.cSeconds + b.cSeconds) / (a.javaSeconds + b.javaSeconds);
                    }).toArray();
        }

        /** The median Java/C of the single pairs in which C's round went first, or Java's: what going first does. */
        private double orderMedian(String transport, int senders, int size, boolean cFirst) {
            return Stats.median(pairsOf(transport, senders, size).filter(p -> p.cFirst == cFirst)
                    .mapToDouble(Pair::javaOverC));
        }

        private double medianMillis(String transport, int senders, int size, boolean java) {
            return 1000 * Stats.median(pairsOf(transport, senders, size)
                    .mapToDouble(p -> java ? p.javaSeconds : p.cSeconds));
        }

        /** A point's pairs, in the order they ran. */
        private Stream<Pair> pairsOf(String transport, int senders, int size) {
            return results.stream().filter(p -> p.transport.equals(transport) && p.senders == senders && p.size == size);
        }

        /** Where the interval lies against the goal's edges; an interval across the lower edge resolves nothing. */
        private static String verdict(Stats.Interval interval) {
            if (interval.high() < 1 - GOAL) {
                return "**Java slower by over 5%**";
            }
            if (interval.low() > 1 + GOAL) {
                return "Java faster by over 5%";
            }
            if (interval.low() >= 1 - GOAL) {
                return interval.high() <= 1 + GOAL ? "within 5%" : "not slower by 5% (may be faster by more)";
            }
            return "not resolved";
        }

        private void report() throws Exception {
            StringBuilder csv = new StringBuilder(
                    "transport,senders,partition_bytes,block,pair,c_first,c_seconds,java_seconds\n");
            for (Pair p : results) {
                csv.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%b,%.7f,%.7f%n", p.transport, p.senders, p.size,
                        p.block, p.index, p.cFirst, p.cSeconds, p.javaSeconds));
            }
            XYChart chart = Charts.sizeChart("Java / C receiver rate, round by round (order-balanced median)",
                    "Java / C");
            double[] log2KiB = Charts.log2KiB(sizes);
            StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                    "| transport | fan-in | partition | C round (ms) | Java round (ms) | Java/C | 95%% interval | blocks |"
                            + " C first / Java first | samples Java faster | verdict |%n"
                            + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|%n"));
            for (String transport : TRANSPORTS) {
                for (int senders : senderCounts) {
                    double[] medians = new double[sizes.length];
                    for (int i = 0; i < sizes.length; i++) {
                        int size = sizes[i];
                        double[] r = balancedRatios(transport, senders, size, b -> true);
                        double[] perBlock = IntStream.range(0, blocks).mapToDouble(block -> Stats.median(
                                Arrays.stream(balancedRatios(transport, senders, size, b -> b == block)))).toArray();
                        Stats.Interval interval = Stats.medianInterval95(r);
                        medians[i] = Stats.median(Arrays.stream(r));
                        table.append(String.format(Locale.ROOT,
                                "| %s | 1:%d | %d KiB | %.2f | %.2f | **%.3f** | %s | %.2f to %.2f | %.3f / %.3f | %.0f%%"
                                        + " | %s |%n",
                                transport.equals("tipc") ? "TIPC (ours)" : "TCP (JDK)", senders, size >> 10,
                                medianMillis(transport, senders, size, false), medianMillis(transport, senders, size, true),
                                medians[i], interval.format("%.3f"), Arrays.stream(perBlock).min().orElseThrow(),
                                Arrays.stream(perBlock).max().orElseThrow(), orderMedian(transport, senders, size, true),
                                orderMedian(transport, senders, size, false),
                                100.0 * Arrays.stream(r).filter(x -> x > 1).count() / r.length, verdict(interval)));
                    }
                    chart.addSeries((transport.equals("tipc") ? "TIPC (ours)" : "TCP (JDK)") + " 1:" + senders, log2KiB,
                            medians);
                }
            }
            for (double edge : new double[] {1 - GOAL, 1 + GOAL}) {
                chart.addSeries(String.format(Locale.ROOT, "goal edge %.2f", edge), log2KiB,
                        Arrays.stream(sizes).mapToDouble(s -> edge).toArray())
                        .setMarker(SeriesMarkers.NONE).setLineStyle(SeriesLines.DASH_DASH).setLineColor(Color.GRAY);
            }
            Charts.save(out, "plot", chart);
            String body = String.format(Locale.ROOT, "One receiver on machine m1, N senders spread evenly over machines"
                    + " %s (incast's senders: incast_bench.c, a process per connection), each machine a separate guest"
                    + " on one host bridge, so TIPC crosses real links. A C receiver (incast_bench.c, epoll) and a Java"
                    + " receiver (one thread on a selector: over TIPC our binding's `TipcSelector`, over TCP the JDK's"
                    + " `Selector`, the reference for what a receiver in a JVM costs here) hold connections to the same"
                    + " senders at once and take turns, a round each: a **pair**. A round: a 4-byte request on every"
                    + " connection at once, then every partition read to its last byte; each receiver times its own"
                    + " round. Per point %d pairs in %d blocks, each block with both receivers connected anew and"
                    + " the C receiver first in every other pair; the two transports' blocks alternate. Before"
                    + " anything is measured, %d pairs at 1:%d and %d KiB per transport compile the Java read path."
                    + " The receiver that goes second in a pair is slower, by up to a fifth at 1:4 (C first / Java"
                    + " first: the median Java/C of single pairs in which each went first), so the samples are"
                    + " order-balanced: two consecutive pairs of a block, in which each receiver went first once, their"
                    + " round times summed. **Java/C** = the median over a point's samples of C's round time / Java's"
                    + " (Java's rate over C's), with its 95%% bootstrap interval; blocks: the lowest and highest median"
                    + " of one block's samples. Goal: Java/C within 5%% of 1; the verdict says where the interval lies"
                    + " against 0.95 and 1.05 (not resolved: across 0.95).%n%n%s",
                    Arrays.stream(senderNodes).mapToObj(n -> "m" + n).collect(Collectors.joining(", ")), pairs, blocks,
                    IncastReceiver.JIT_WARM_UP_ROUNDS, Arrays.stream(senderCounts).max().orElseThrow(), sizes[0] >> 10,
                    table);
            Results.write(out, "incast-pairs", csv, body);
        }
    }
}
