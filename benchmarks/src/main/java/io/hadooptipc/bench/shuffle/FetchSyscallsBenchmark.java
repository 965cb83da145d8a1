package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.harness.FetchCost.Fetching;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.shuffle.server.TipcShuffleServer;
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
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * System calls and exceptions per map output on a reducer's fetching thread: the stock fetcher's
 * connection (the JDK's HTTP client over TCP) and ours over TIPC, against the same handler of ours in
 * testbed node n1, each reading every response as the stock fetcher reads it; and the system calls
 * per map output of our TIPC server's event loop with small map outputs gathered
 * ({@code mapreduce.shuffle.tipc.gather.max-bytes}) at each threshold given, 0 sending each as stock
 * does. Counts of work, not times: the JVM runs under {@code strace -ff}, one file of system calls
 * per thread, and logs every exception thrown with its thread's id; each reducer series runs, after a
 * warm-up, in a thread of its own, whose id says which lines are its; each server series has a
 * handler of its own, served by one event-loop thread.
 * <p>Two steps. {@code run WORK MAPS REQUESTS GATHER[,GATHER...] SIZE...}, inside the testbed: per
 * partition size and gathering threshold, a handler; {@code REQUESTS} requests of {@code MAPS} map
 * outputs each, by our connection, and by the stock one with the first threshold's handler; writes
 * WORK/threads.csv. {@code report OUT WORK}: counts each series' lines in WORK/strace.TID and
 * WORK/exceptions.log.
 */
public final class FetchSyscallsBenchmark {
    private static final String SERVER_IP = TestbedNetwork.node(1);
    private static final int WARM_UP_REQUESTS = 20;
    /** How the system calls are grouped in the results: the rest are "other". */
    private static final Map<String, String> KINDS = Map.ofEntries(
            Map.entry("read", "read"), Map.entry("readv", "read"), Map.entry("recvfrom", "read"),
            Map.entry("recvmsg", "read"), Map.entry("poll", "poll"), Map.entry("ppoll", "poll"),
            Map.entry("epoll_wait", "poll"), Map.entry("epoll_pwait", "poll"), Map.entry("write", "write"),
            Map.entry("writev", "write"), Map.entry("sendto", "write"), Map.entry("sendmsg", "write"),
            Map.entry("sendfile", "write"), Map.entry("pread64", "read"));
    private static final List<String> KIND_ORDER = List.of("read", "poll", "write", "other");
    private static final Pattern SYSCALL = Pattern.compile("^(\\w+)\\(");
    /** A write's result, the bytes it took: {@code = N} at a strace line's end. */
    private static final Pattern RESULT = Pattern.compile("= (\\d+)$");
    /** The largest message TIPC sends (TIPC_MAX_USER_MSG_SIZE): a stream write of more is cut into several. */
    private static final int TIPC_MAX_MESSAGE = 66_000;
    /** The server's calls on a map-output file, as strace -y names it, count with those on its sockets. */
    private static final String MAP_OUTPUT_FILE = "/file.out>";

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
        if (args.length >= 6 && args[0].equals("run")) {
            run(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray(),
                    Arrays.stream(args, 5, args.length).mapToInt(Integer::parseInt).toArray());
        } else if (args.length == 3 && args[0].equals("report")) {
            report(Path.of(args[1]), Path.of(args[2]));
        } else {
            System.err.println("usage: FetchSyscallsBenchmark run WORK MAPS REQUESTS GATHER[,GATHER...] SIZE... | report OUT WORK");
            System.exit(2);
        }
    }

    private static void run(Path work, int maps, int requests, int[] gathers, int[] sizes) throws Exception {
        Path threads = work.resolve("threads.csv");
        Files.writeString(threads, "role,side,gather_max_bytes,partition_bytes,maps_per_request,requests,tid\n");
        Set<Long> servers = new HashSet<>();
        for (int size : sizes) {
            MapOutputFixture outputs = new MapOutputFixture(Files.createTempDirectory(work, "outputs"), maps, 1, size);
            for (int gather : gathers) {
                YarnConfiguration conf = new YarnConfiguration();
                conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 1); // one event loop: the server series' thread
                conf.setInt(TipcShuffleConfig.GATHER_MAX_BYTES, gather);
                TipcShuffleHandler handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
                try {
                    int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
                    Testbed.on("n2", () -> Tipc.awaitPublished(ShuffleServiceName.of(InetAddress.getByName(SERVER_IP),
                            port).tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Duration.ofSeconds(20)));
                    for (Side side : gather == gathers[0] ? Side.values() : new Side[] {Side.OURS}) {
                        long tid = Testbed.on("n2", () -> measure(side, outputs, port, requests));
                        record(threads, "reducer", side, gather, size, maps, requests, tid);
                        System.out.printf(Locale.ROOT, "%s, %d B, gather %d B: %d requests of %d map outputs on thread %d%n",
                                side.label, size, gather, requests, maps, tid);
                    }
                    // It served the warm-up requests too, and nothing else.
                    long server = serverThread(servers);
                    servers.add(server);
                    record(threads, "server", Side.OURS, gather, size, maps, WARM_UP_REQUESTS + requests, server);
                } finally {
                    MapOutputFixture.stopIn("n1", handler);
                }
            }
        }
    }

    private static void record(Path threads, String role, Side side, int gather, int size, int maps, int requests, long tid)
            throws IOException {
        Files.writeString(threads, String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%d,%d%n", role, side, gather, size, maps,
                requests, tid), StandardOpenOption.APPEND);
    }

    /**
     * The id of the running TIPC server's one event-loop thread, found by the name the kernel keeps of it;
     * not one of {@code earlier}, the threads of stopped servers, which may not have ended yet.
     */
    private static long serverThread(Set<Long> earlier) throws IOException {
        List<Long> found = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                long tid = Long.parseLong(task.getFileName().toString());
                String name;
                try {
                    name = Files.readString(task.resolve("comm"));
                } catch (NoSuchFileException ended) { // a stopped server's thread, ending as it was listed
                    continue;
                }
                if (!earlier.contains(tid) && name.startsWith(TipcShuffleServer.THREAD_NAME)) {
                    found.add(tid);
                }
            }
        }
        if (found.size() != 1) {
            throw new IllegalStateException("expected one TIPC shuffle server thread, found " + found);
        }
        return found.get(0);
    }

    /** Warms up in this thread, then fetches in a new one (of this node too); that thread's id. */
    private static long measure(Side side, MapOutputFixture outputs, int port, int requests) throws Exception {
        JobConf job = new JobConf();
        // Every size over TIPC: the series counts TIPC's path, which the default would leave after a 64 KiB map output.
        job.setLong(TipcShuffleConfig.TCP_ABOVE_BYTES, 0);
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

    private record Row(String role, Side side, int gather, int size, int mapOutputs, Map<String, Integer> calls,
                       long messages, int exceptions) {
        double perMapOutput(String kind) {
            return calls.getOrDefault(kind, 0) / (double) mapOutputs;
        }

        double callsPerMapOutput() {
            return calls.values().stream().mapToInt(Integer::intValue).sum() / (double) mapOutputs;
        }

        String connection() {
            return side == Side.STOCK ? side.label : side.label + ", gather " + (gather == 0 ? "off" : gather + " B");
        }
    }

    private static void report(Path out, Path work) throws IOException {
        List<String> exceptionLog = Files.readAllLines(work.resolve("exceptions.log"), StandardCharsets.UTF_8);
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(work.resolve("threads.csv")).stream().skip(1).toList()) {
            String[] f = line.split(",");
            boolean server = f[0].equals("server");
            long tid = Long.parseLong(f[6]);
            Map<String, Integer> calls = new TreeMap<>();
            long messages = 0;
            for (String call : Files.readAllLines(work.resolve("strace." + tid))) {
                Matcher m = SYSCALL.matcher(call);
                if (!m.find()) {
                    continue;
                }
                // strace -y names each descriptor: a socket's calls count (and the server's on map-output files),
                // the exception log's and the server's log's writes do not
                boolean onSocket = call.contains("<socket:") || m.group(1).equals("socket");
                if (onSocket || server && call.contains(MAP_OUTPUT_FILE)) {
                    String kind = KINDS.getOrDefault(m.group(1), "other");
                    calls.merge(kind, 1, Integer::sum);
                    Matcher result = RESULT.matcher(call);
                    if (onSocket && kind.equals("write") && result.find()) {
                        messages += (Long.parseLong(result.group(1)) + TIPC_MAX_MESSAGE - 1) / TIPC_MAX_MESSAGE;
                    }
                }
            }
            String prefix = "[" + tid + "] Exception <";
            int exceptions = (int) exceptionLog.stream().filter(l -> l.startsWith(prefix)).count();
            rows.add(new Row(f[0], Side.valueOf(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]) * Integer.parseInt(f[5]), calls, messages, exceptions));
        }
        StringBuilder csv = new StringBuilder("role,side,gather_max_bytes,partition_bytes,map_outputs");
        KIND_ORDER.forEach(k -> csv.append(",").append(k).append("_calls"));
        csv.append(",tipc_messages_written,exceptions\n");
        StringBuilder summary = new StringBuilder("""
                A reducer's fetching thread in n2, our handler in n1 (namespaces of one guest). Each series: one \
                thread, after a warm-up, sending requests of several map outputs each and reading every response as \
                the stock fetcher does (each ShuffleHeader's fields, a varint a byte at a time, then the map output). \
                System calls are those strace counted on that thread on a socket: reads (read, recvfrom, recvmsg), \
                waits (poll, ppoll, epoll_wait), writes, and other socket calls (socket, connect, close, options); \
                futexes and calls on files are not counted. Exceptions are those the JVM logged as thrown on it. \
                Our handler sends small map outputs gathered (mapreduce.shuffle.tipc.gather.max-bytes) as set in the \
                connection's name; stock's HTTP/TCP server does not gather.

                | partition | connection | map outputs | system calls per map output | reads | waits | writes | other \
                | exceptions per map output |
                |---|---|---|---|---|---|---|---|---|
                """);
        StringBuilder servers = new StringBuilder("""

                Our TIPC server's one event-loop thread in n1, per series (warm-up included): system calls on its \
                sockets and on map-output files per map output served: reads (read, recvfrom, recvmsg, pread64 of \
                gathered map outputs), waits, writes (write, writev, sendfile), other (fadvise64, options); \
                TIPC messages written: each socket write's bytes in messages of at most 66,000 bytes, TIPC's \
                largest, so a lower bound. Stock's readahead requests run on Hadoop's readahead threads, not counted.

                | partition | gather | map outputs | system calls per map output | reads | waits | writes | other \
                | TIPC messages per map output |
                |---|---|---|---|---|---|---|---|---|
                """);
        CategoryChart chart = Charts.bars("System calls per map output on the fetching thread", "partition (bytes)",
                "system calls per map output");
        CategoryChart serverChart = Charts.bars("System calls per map output on our TIPC server's event loop",
                "partition (bytes)", "system calls per map output");
        Map<String, List<Double>> byConnection = new TreeMap<>();
        Map<String, List<Double>> byGather = new TreeMap<>();
        List<String> sizes = new ArrayList<>();
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%d", r.role, r.side, r.gather, r.size, r.mapOutputs));
            KIND_ORDER.forEach(k -> csv.append(",").append(r.calls.getOrDefault(k, 0)));
            csv.append(",").append(r.messages).append(",").append(r.exceptions).append("\n");
            if (r.role.equals("server")) {
                servers.append(String.format(Locale.ROOT, "| %d B | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                        r.size, r.gather == 0 ? "off" : r.gather + " B", r.mapOutputs, r.callsPerMapOutput(),
                        r.perMapOutput("read"), r.perMapOutput("poll"), r.perMapOutput("write"), r.perMapOutput("other"),
                        r.messages / (double) r.mapOutputs));
                byGather.computeIfAbsent("gather " + (r.gather == 0 ? "off" : r.gather + " B"), g -> new ArrayList<>())
                        .add(r.callsPerMapOutput());
            } else {
                summary.append(String.format(Locale.ROOT, "| %d B | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                        r.size, r.connection(), r.mapOutputs, r.callsPerMapOutput(), r.perMapOutput("read"),
                        r.perMapOutput("poll"), r.perMapOutput("write"), r.perMapOutput("other"),
                        r.exceptions / (double) r.mapOutputs));
                byConnection.computeIfAbsent(r.connection(), c -> new ArrayList<>()).add(r.callsPerMapOutput());
            }
            if (!sizes.contains(String.valueOf(r.size))) {
                sizes.add(String.valueOf(r.size));
            }
        }
        byConnection.forEach((connection, values) -> chart.addSeries(connection, sizes, values));
        byGather.forEach((gather, values) -> serverChart.addSeries(gather, sizes, values));
        Charts.save(out, "plot", chart);
        Charts.save(out, "server", serverChart);
        Results.write(out, "fetch-syscalls", csv, summary.append(servers).toString());
    }
}
