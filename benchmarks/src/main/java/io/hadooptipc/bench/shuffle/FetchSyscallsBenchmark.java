package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.harness.FetchCost.Fetching;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * System calls and exceptions per map output on a reducer's fetching thread: the stock fetcher's
 * connection (the JDK's HTTP client over TCP) and ours over TIPC, against the same handler of ours in
 * testbed node n1, each reading every response as the stock fetcher reads it. Counts of work, not
 * times: the JVM runs under {@code strace -ff}, one file of system calls per thread, and logs every
 * exception thrown with its thread's id; each series runs, after a warm-up, in a thread of its own,
 * whose id says which lines are its.
 * <p>Two steps. {@code run WORK MAPS REQUESTS SIZE...}, inside the testbed: per partition size, both
 * connections, {@code REQUESTS} requests of {@code MAPS} map outputs each; writes WORK/threads.csv.
 * {@code report OUT WORK}: counts each series' lines in WORK/strace.TID and WORK/exceptions.log.
 */
public final class FetchSyscallsBenchmark {
    private static final String SERVER_IP = TestbedNetwork.node(1);
    private static final int WARM_UP_REQUESTS = 20;
    /** How the system calls are grouped in the results: the rest are "other". */
    private static final Map<String, String> KINDS = Map.ofEntries(
            Map.entry("read", "read"), Map.entry("readv", "read"), Map.entry("recvfrom", "read"),
            Map.entry("recvmsg", "read"), Map.entry("poll", "poll"), Map.entry("ppoll", "poll"),
            Map.entry("epoll_wait", "poll"), Map.entry("epoll_pwait", "poll"), Map.entry("write", "write"),
            Map.entry("writev", "write"), Map.entry("sendto", "write"), Map.entry("sendmsg", "write"));
    private static final List<String> KIND_ORDER = List.of("read", "poll", "write", "other");
    private static final Pattern SYSCALL = Pattern.compile("^(\\w+)\\(");

    /** A fetching connection: the stock fetcher's, or ours. */
    private enum Side {
        STOCK("stock (HTTP/TCP)"), OURS("ours (TIPC)");

        final String label;

        Side(String label) {
            this.label = label;
        }
    }

    private FetchSyscallsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 5 && args[0].equals("run")) {
            run(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Arrays.stream(args, 4, args.length).mapToInt(Integer::parseInt).toArray());
        } else if (args.length == 3 && args[0].equals("report")) {
            report(Path.of(args[1]), Path.of(args[2]));
        } else {
            System.err.println("usage: FetchSyscallsBenchmark run WORK MAPS REQUESTS SIZE... | report OUT WORK");
            System.exit(2);
        }
    }

    private static void run(Path work, int maps, int requests, int[] sizes) throws Exception {
        Path threads = work.resolve("threads.csv");
        Files.writeString(threads, "side,partition_bytes,maps_per_request,requests,tid\n");
        for (int size : sizes) {
            MapOutputFixture outputs = new MapOutputFixture(Files.createTempDirectory(work, "outputs"), maps, 1, size);
            TipcShuffleHandler handler = outputs.serveIn("n1", TipcShuffleHandler::new, new YarnConfiguration());
            try {
                int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
                Testbed.on("n2", () -> Tipc.awaitPublished(ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port)
                        .tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Duration.ofSeconds(20)));
                for (Side side : Side.values()) {
                    long tid = Testbed.on("n2", () -> measure(side, outputs, port, requests));
                    Files.writeString(threads, String.format(Locale.ROOT, "%s,%d,%d,%d,%d%n", side, size, maps, requests,
                            tid), StandardOpenOption.APPEND);
                    System.out.printf(Locale.ROOT, "%s, %d B: %d requests of %d map outputs on thread %d%n", side.label,
                            size, requests, maps, tid);
                }
            } finally {
                MapOutputFixture.stopIn("n1", handler);
            }
        }
    }

    /** Warms up in this thread, then fetches in a new one (of this node too); that thread's id. */
    private static long measure(Side side, MapOutputFixture outputs, int port, int requests) throws Exception {
        JobConf job = new JobConf();
        try (Fetching fetching = side == Side.STOCK ? Fetching.stock(job) : Fetching.ours(job)) {
            fetching.fetchAll("http", SERVER_IP, port, outputs.key, outputs.mapIds(), WARM_UP_REQUESTS);
            AtomicReference<Long> tid = new AtomicReference<>();
            AtomicReference<Exception> failure = new AtomicReference<>();
            Thread measured = new Thread(() -> {
                try {
                    tid.set(Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString()));
                    fetching.fetchAll("http", SERVER_IP, port, outputs.key, outputs.mapIds(), requests);
                } catch (Exception e) {
                    failure.set(e);
                }
            }, "measured " + side);
            measured.start();
            measured.join();
            if (failure.get() != null) {
                throw failure.get();
            }
            return tid.get();
        }
    }

    private record Row(Side side, int size, int mapOutputs, Map<String, Integer> calls, int exceptions) {
        double perMapOutput(String kind) {
            return calls.getOrDefault(kind, 0) / (double) mapOutputs;
        }

        double callsPerMapOutput() {
            return calls.values().stream().mapToInt(Integer::intValue).sum() / (double) mapOutputs;
        }
    }

    private static void report(Path out, Path work) throws IOException {
        List<String> exceptionLog = Files.readAllLines(work.resolve("exceptions.log"), StandardCharsets.UTF_8);
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(work.resolve("threads.csv")).stream().skip(1).toList()) {
            String[] f = line.split(",");
            long tid = Long.parseLong(f[4]);
            Map<String, Integer> calls = new TreeMap<>();
            for (String call : Files.readAllLines(work.resolve("strace." + tid))) {
                Matcher m = SYSCALL.matcher(call);
                // strace -y names each descriptor: a socket's calls count, the exception log's writes do not
                if (m.find() && (call.contains("<socket:") || m.group(1).equals("socket"))) {
                    calls.merge(KINDS.getOrDefault(m.group(1), "other"), 1, Integer::sum);
                }
            }
            String prefix = "[" + tid + "] Exception <";
            int exceptions = (int) exceptionLog.stream().filter(l -> l.startsWith(prefix)).count();
            rows.add(new Row(Side.valueOf(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]) * Integer.parseInt(f[3]),
                    calls, exceptions));
        }
        StringBuilder csv = new StringBuilder("side,partition_bytes,map_outputs");
        KIND_ORDER.forEach(k -> csv.append(",").append(k).append("_calls"));
        csv.append(",exceptions\n");
        StringBuilder summary = new StringBuilder("""
                A reducer's fetching thread in n2, our handler in n1 (namespaces of one guest). Each series: one \
                thread, after a warm-up, sending requests of several map outputs each and reading every response as \
                the stock fetcher does (each ShuffleHeader's fields, a varint a byte at a time, then the map output). \
                System calls are those strace counted on that thread on a socket: reads (read, recvfrom, recvmsg), \
                waits (poll, ppoll, epoll_wait), writes, and other socket calls (socket, connect, close, options); \
                futexes and calls on files are not counted. Exceptions are those the JVM logged as thrown on it.

                | partition | connection | map outputs | system calls per map output | reads | waits | writes | other \
                | exceptions per map output |
                |---|---|---|---|---|---|---|---|---|
                """);
        CategoryChart chart = Charts.bars("System calls per map output on the fetching thread", "partition (bytes)",
                "system calls per map output");
        Map<Side, List<Double>> bySide = new TreeMap<>();
        List<String> sizes = new ArrayList<>();
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT, "%s,%d,%d", r.side, r.size, r.mapOutputs));
            KIND_ORDER.forEach(k -> csv.append(",").append(r.calls.getOrDefault(k, 0)));
            csv.append(",").append(r.exceptions).append("\n");
            summary.append(String.format(Locale.ROOT, "| %d B | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                    r.size, r.side.label, r.mapOutputs, r.callsPerMapOutput(), r.perMapOutput("read"),
                    r.perMapOutput("poll"), r.perMapOutput("write"), r.perMapOutput("other"),
                    r.exceptions / (double) r.mapOutputs));
            bySide.computeIfAbsent(r.side, s -> new ArrayList<>()).add(r.callsPerMapOutput());
            if (!sizes.contains(String.valueOf(r.size))) {
                sizes.add(String.valueOf(r.size));
            }
        }
        bySide.forEach((side, values) -> chart.addSeries(side.label, sizes, values));
        Charts.save(out, "plot", chart);
        Results.write(out, "fetch-syscalls", csv, summary.toString());
    }
}
