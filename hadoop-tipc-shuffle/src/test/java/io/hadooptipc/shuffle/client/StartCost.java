package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcTopologyChannel;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.crypto.SecretKey;

/**
 * Where a reduce task's fixed shuffle cost goes: in the TIPC testbed, fresh
 * JVMs in node n1 with the task JVMs' flags do, step by step, what the stock fetcher
 * ({@code stock}) or our consumer ({@code ours}) does at the start of a shuffle, against
 * one {@link TipcShuffleHandler} in its own JVM in n2, and each step's wall time, process
 * CPU (every thread, JIT and GC included) and classes loaded are printed, median over
 * rounds in ABBA order after a discarded warm-up pair. Diagnostic figures: run it alone.
 * <pre>
 *   testbed/vm/tipc-vm --nodes 2 -- java -cp CLASSPATH io.hadooptipc.shuffle.client.StartCost [ROUNDS]
 * </pre>
 * {@code -Dstartcost.classes=true} also logs class loading and prints, by package, the classes
 * one side loads and the other does not; {@code -Dstartcost.baseline=CLASSPATH} adds a third side,
 * {@code baseline}: our consumer from another build (say main's), to measure a change in one run.
 */
public final class StartCost {
    /** The task JVM flags of benchmarks/shuffle. */
    private static final List<String> TASK_JVM = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:-UsePerfData", "-Xshare:auto");
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private StartCost() {
    }

    public static void main(String[] args) throws Exception {
        switch (args.length == 0 ? "" : args[0]) {
            case "serve":
                serve(Path.of(args[1]));
                break;
            case "stock":
            case "ours":
                probe(args[0], Path.of(args[1]));
                break;
            default:
                drive(args.length == 0 ? 5 : Integer.parseInt(args[0]));
                break;
        }
    }

    private static void drive(int rounds) throws Exception {
        Files.createDirectories(Path.of("target"));
        Path dir = Files.createTempDirectory(Path.of("target"), "start-cost").toAbsolutePath();
        boolean logClasses = Boolean.getBoolean("startcost.classes");
        // A task container's log layout (container-log4j.properties): no caller location, which costs a stack walk.
        Path log4j = dir.resolve("task-log4j.properties");
        Files.write(log4j, List.of("log4j.rootLogger=INFO,console",
                "log4j.appender.console=org.apache.log4j.ConsoleAppender",
                "log4j.appender.console.target=System.err",
                "log4j.appender.console.layout=org.apache.log4j.PatternLayout",
                "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p [%t] %c: %m%n"));
        String ownClassPath = System.getProperty("java.class.path");
        String baseline = System.getProperty("startcost.baseline");
        List<String> sides = baseline == null ? List.of("stock", "ours") : List.of("stock", "ours", "baseline");
        Process server = java("n2", List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), "serve", dir, ownClassPath)
                .redirectOutput(dir.resolve("server.log").toFile()).redirectErrorStream(true).start();
        try {
            Path ready = dir.resolve("server.properties");
            for (long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5); !Files.exists(ready); Thread.sleep(200)) {
                if (!server.isAlive() || System.nanoTime() > end) {
                    throw new IOException("the server in n2 did not start; see " + dir.resolve("server.log"));
                }
            }
            Map<String, Map<String, List<long[]>>> bySide = new TreeMap<>();
            for (int round = 0; round <= rounds; round++) {
                List<String> order = new ArrayList<>(sides);
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String side : order) {
                    List<String> flags = new ArrayList<>(TASK_JVM);
                    flags.add("-Dlog4j.configuration=" + log4j.toUri());
                    if (logClasses) {
                        flags.add("-Xlog:class+load=info:file=" + dir.resolve("classes-" + side + ".log"));
                    }
                    Map<String, long[]> steps = run(side, side.equals("baseline")
                            ? java("n1", flags, "ours", dir, baseline) : java("n1", flags, side, dir, ownClassPath));
                    if (logClasses) {
                        classesByStep(dir.resolve("classes-" + side + ".log"), steps,
                                dir.resolve("classes-" + side + "-by-step.txt"));
                    }
                    if (round > 0) { // round 0 warms the guest's caches of the jars
                        steps.forEach((step, v) -> bySide.computeIfAbsent(side, s -> new LinkedHashMap<>())
                                .computeIfAbsent(step, s -> new ArrayList<>()).add(v));
                    }
                }
            }
            StringBuilder head = new StringBuilder(String.format("%-16s", "step (median of " + rounds + ")"));
            Set<String> steps = new java.util.LinkedHashSet<>();
            for (String side : sides) {
                head.append(String.format(" %30s", side + ": wall/cpu ms, classes"));
                steps.addAll(bySide.get(side).keySet());
            }
            System.out.println(head);
            for (String step : steps) {
                StringBuilder line = new StringBuilder(String.format("%-16s", step));
                for (String side : sides) {
                    line.append(String.format(" %30s", median(bySide.get(side).get(step))));
                }
                System.out.println(line);
            }
            if (logClasses) {
                Set<String> stock = classes(dir.resolve("classes-stock.log"));
                Set<String> ours = classes(dir.resolve("classes-ours.log"));
                System.out.println("classes only ours loads: " + byPackage(ours, stock));
                System.out.println("classes only stock loads: " + byPackage(stock, ours));
            }
        } finally {
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static ProcessBuilder java(String node, List<String> flags, String command, Path dir, String classPath) {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", node,
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(flags);
        cmd.addAll(List.of("-cp", classPath, StartCost.class.getName(), command,
                dir.toString()));
        return new ProcessBuilder(cmd);
    }

    /** A probe's STEP lines: name, wall ms, CPU ms, classes loaded. */
    private static Map<String, long[]> run(String side, ProcessBuilder probe) throws Exception {
        Process p = probe.redirectErrorStream(true).start();
        Map<String, long[]> steps = new LinkedHashMap<>();
        List<String> output = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                output.add(line);
                if (line.startsWith("STEP ")) {
                    String[] f = line.split(" ");
                    steps.put(f[1], new long[]{Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                            Long.parseLong(f[5])});
                }
            }
        }
        if (p.waitFor() != 0) {
            throw new IOException("probe " + probe.command() + " failed:\n" + String.join("\n", output));
        }
        System.out.println(side + ": "
                + steps.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()[0] + "/" + e.getValue()[1])
                .collect(Collectors.joining(", ")));
        return steps;
    }

    private static String median(List<long[]> values) {
        if (values == null) {
            return "-";
        }
        long[] m = new long[3];
        for (int i = 0; i < 3; i++) {
            int field = i;
            List<Long> sorted = values.stream().map(v -> v[field]).sorted().collect(Collectors.toList());
            m[i] = sorted.get(sorted.size() / 2);
        }
        return m[0] + "/" + m[1] + " ms, " + m[2];
    }

    /** Writes the classes each step loaded, from the log's uptime stamps and the steps' end times. */
    private static void classesByStep(Path log, Map<String, long[]> steps, Path out) throws IOException {
        List<String> lines = new ArrayList<>();
        List<String> all = Files.readAllLines(log);
        int at = 0;
        for (Map.Entry<String, long[]> step : steps.entrySet()) {
            lines.add("== " + step.getKey());
            for (; at < all.size(); at++) {
                String l = all.get(at); // "[0.012s][info][class,load] java.lang.Object source: shared objects file"
                double seconds = Double.parseDouble(l.substring(1, l.indexOf('s')));
                if (seconds * 1000 > step.getValue()[3]) {
                    break;
                }
                lines.add(l);
            }
        }
        Files.write(out, lines);
    }

    private static Set<String> classes(Path log) throws IOException {
        try (Stream<String> lines = Files.lines(log)) {
            // "[0.012s][info][class,load] java.lang.Object source: shared objects file"
            return lines.map(l -> l.split(" ")).filter(f -> f.length > 1).map(f -> f[1])
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static String byPackage(Set<String> these, Set<String> notThose) {
        Map<String, Integer> counts = new TreeMap<>();
        int total = 0;
        for (String c : these) {
            if (!notThose.contains(c)) {
                String[] parts = c.split("\\.");
                String pkg = String.join(".", java.util.Arrays.copyOf(parts, Math.min(4, parts.length - 1)));
                counts.merge(pkg, 1, Integer::sum);
                total++;
            }
        }
        return total + " " + counts;
    }

    /** Our handler in this process's node, serving two maps' partitions of 4 KB to reduce 0. */
    private static void serve(Path dir) throws Exception {
        MapOutputFixture outputs = new MapOutputFixture(dir.resolve("local"), 2, 1, 4096);
        TipcShuffleHandler handler = outputs.serve(new TipcShuffleHandler(), new YarnConfiguration(), 0);
        Properties p = new Properties();
        p.setProperty("port", Integer.toString(ShuffleHandler.deserializeMetaData(handler.getMetaData())));
        p.setProperty("key", Base64.getEncoder().encodeToString(outputs.key.getEncoded()));
        Path tmp = dir.resolve("server.properties.tmp");
        try (var out = Files.newOutputStream(tmp)) {
            p.store(out, null);
        }
        Files.move(tmp, dir.resolve("server.properties"));
        Thread.sleep(Long.MAX_VALUE);
    }

    private static long wall;
    private static long cpu;
    private static long classes;

    private static void step(String name) {
        long w = System.nanoTime();
        long c = OS.getProcessCpuTime();
        long k = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
        if (name != null) {
            System.out.println("STEP " + name + " " + (w - wall) / 1_000_000 + " " + (c - cpu) / 1_000_000 + " "
                    + (k - classes) + " " + ManagementFactory.getRuntimeMXBean().getUptime());
        }
        wall = System.nanoTime();
        cpu = OS.getProcessCpuTime();
        classes = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
    }

    /** A reducer's start of the shuffle from the server in n2, from n1, as {@code side} does it. */
    private static void probe(String side, Path dir) throws Exception {
        step(null);
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve("server.properties"))) {
            p.load(in);
        }
        int port = Integer.parseInt(p.getProperty("port"));
        SecretKey key = JobTokenSecretManager.createSecretKey(Base64.getDecoder().decode(p.getProperty("key")));
        // What both sides do before and around their fetches: configuration, counters, the URL's HMAC.
        JobConf conf = new JobConf();
        CountingReporter reporter = new CountingReporter();
        reporter.incrCounter(TaskCounter.REDUCE_SHUFFLE_BYTES, 0);
        ShuffleWire.urlHash(ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0)), port, key);
        step("common");
        List<String> uris = List.of(ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0)),
                ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(1)));
        if (side.equals("stock")) {
            for (int i = 0; i < uris.size(); i++) {
                HttpURLConnection c = (HttpURLConnection) new URL("http", TestbedNetwork.node(2), port, uris.get(i))
                        .openConnection();
                fetch(c, uris.get(i), port, key);
                step("fetch-" + (i + 1));
            }
        } else {
            Class.forName("io.hadooptipc.tipc.TipcNative");
            step("native-library");
            TransferCounters counters = new TransferCounters(reporter);
            // TransportRoutes.start's two steps, timed apart: one topology connection for both.
            TipcTopologyChannel topology = TipcTopologyChannel.open();
            TransportRoutes routes = new TransportRoutes(Transport.of(conf), Tipc.availability(topology), counters);
            step("availability");
            routes.follow(TipcNameWatch.start(TipcShuffleConfig.serviceType(conf), routes, topology));
            step("name-watch");
            StreamPool streams = StreamPool.of(conf, new TipcStreamTransport(TipcShuffleConfig.serviceType(conf)),
                    counters);
            routes.onLeavingTipc(streams);
            step("stream-pool");
            for (int i = 0; i < uris.size(); i++) {
                fetch(new TipcShuffleConnection(new URL("http", TestbedNetwork.node(2), port, uris.get(i)), routes, streams,
                        counters, new PlainConnections(), key), uris.get(i), port, key);
                step("fetch-" + (i + 1));
            }
            streams.close();
            routes.close();
            step("close");
            if (reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS) != uris.size()) {
                throw new IOException("not every map output came over TIPC: " + reporter.counters);
            }
        }
        Thread.sleep(2000); // what threads left running cost while the task merges
        step("idle-2s");
        System.out.println("STEP jvm-total " + ManagementFactory.getRuntimeMXBean().getUptime() + " "
                + OS.getProcessCpuTime() / 1_000_000 + " "
                + ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount() + " "
                + ManagementFactory.getRuntimeMXBean().getUptime());
    }

    /** What TipcFetcher's fallback connections are, without a fetcher; a class, as there: no lambda to spin. */
    private static final class PlainConnections implements StockConnections {
        @Override
        public HttpURLConnection open(URL url) throws IOException {
            return (HttpURLConnection) url.openConnection();
        }
    }

    /** One request as the stock fetcher makes it, its single map output read to the end. */
    private static void fetch(HttpURLConnection c, String uri, int port, SecretKey key) throws IOException {
        c.setConnectTimeout(60_000);
        c.setReadTimeout(60_000);
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, ShuffleWire.urlHash(uri, port, key));
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        c.connect();
        if (c.getResponseCode() != 200) {
            throw new IOException(uri + ": " + c.getResponseCode() + " " + c.getResponseMessage());
        }
        SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH),
                ShuffleWire.urlHash(uri, port, key), key);
        try (InputStream in = c.getInputStream()) {
            if (ShuffleWire.frames(in).size() != 1) {
                throw new IOException(uri + ": not one map output");
            }
        }
    }
}
