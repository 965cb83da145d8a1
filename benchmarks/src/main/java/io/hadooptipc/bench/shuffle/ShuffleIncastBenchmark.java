package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Args;
import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.ControlConnection;
import io.hadooptipc.bench.common.CpuJiffies;
import io.hadooptipc.bench.common.JvmThreadsCpu;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.ReduceTaskShuffle;
import io.hadooptipc.shuffle.harness.ReduceTaskShuffle.MapOutputAt;
import io.hadooptipc.shuffle.harness.ReduceTaskShuffle.Merged;
import io.hadooptipc.shuffle.harness.ShuffleComparison;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.GuestInstructions;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.metrics2.impl.MetricsSystemImpl;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import javax.crypto.SecretKey;

/**
 * Many map hosts to one reducer, as a reduce task shuffles: sender machines each serve the map outputs of several
 * NodeManagers (one shuffle handler per NodeManager and server configuration, on ports of their own, over fixture map
 * outputs of IFile records in the NodeManager's layout), and a reducer on machine 1 runs a reduce task's shuffle
 * ({@link ReduceTaskShuffle}: stock's {@code Shuffle} or our {@code TipcShuffleConsumer}, every map's completion event
 * at once) of one partition of every map, in eight arms interleaved round by round: stock as it ships, stock tuned,
 * ours, ours with every size on TIPC, ours with TIPC off, ours connecting a TIPC stream to each map host ahead of
 * its first fetch, ours with its first fetches over HTTP/TCP, and ours probing the size with one fetch over TIPC.
 *
 * <p>{@code serve CONTROL_PORT WORK_DIR MACHINE HOSTS MAPS} on each sender machine; {@code run OUT CONTROL_PORT
 * SENDER_IPS HOSTS MAPS SIZES ROUNDS} on machine 1. Machine 1 drives the senders over TCP control connections:
 * map outputs and handlers per size, serving CPU before and after each arm.
 */
public final class ShuffleIncastBenchmark {
    /** Partitions per map; round r shuffles partition r mod this, every arm of a round the same one. */
    static final int REDUCES = 2;
    /** What a tuning guide sets on the reducer: at least as many fetchers as map hosts. */
    static final int TUNED_PARALLEL_COPIES = 20;
    /**
     * Rounds run and not kept: every arm shares the reducer JVM, and its JIT was still compiling the
     * shuffle's code through the third round of a trial (copy phases falling by half).
     */
    static final int WARM_UP_ROUNDS = 2;

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** The NodeManager's shuffle server as each arm's operator runs it. */
    enum Server {
        STOCK("stock ShuffleHandler, keep-alive off (its default)"),
        STOCK_KEEP_ALIVE("stock ShuffleHandler, keep-alive on"),
        OURS("our TipcShuffleHandler, defaults");

        final String label;

        Server(String label) {
            this.label = label;
        }

        ShuffleHandler handler() {
            return this == OURS ? new TipcShuffleHandler() : new ShuffleHandler();
        }

        JobConf conf() {
            JobConf conf = new JobConf();
            conf.setBoolean(ShuffleHandler.SHUFFLE_CONNECTION_KEEP_ALIVE_ENABLED, this == STOCK_KEEP_ALIVE);
            return conf;
        }
    }

    /** A reducer's shuffle and the server it fetches from. */
    enum Arm {
        STOCK_DEFAULT("stock default", Shuffle.class, Server.STOCK, Map.of()),
        STOCK_TUNED("stock tuned", Shuffle.class, Server.STOCK_KEEP_ALIVE,
                Map.of(MRJobConfig.SHUFFLE_PARALLEL_COPIES, Integer.toString(TUNED_PARALLEL_COPIES))),
        OURS("ours", TipcShuffleConsumer.class, Server.OURS, Map.of()),
        OURS_ALL_TIPC("ours, all on TIPC", TipcShuffleConsumer.class, Server.OURS,
                Map.of(TipcShuffleConfig.TCP_ABOVE_BYTES, "0")),
        OURS_TCP("ours over TCP", TipcShuffleConsumer.class, Server.OURS, Map.of(TipcShuffleConfig.TRANSPORT, "tcp")),
        OURS_AHEAD("ours, connecting ahead", TipcShuffleConsumer.class, Server.OURS,
                Map.of(TipcShuffleConfig.CONNECT_AHEAD_ENABLED, "true")),
        OURS_TCP_FIRST("ours, first fetches over TCP", TipcShuffleConsumer.class, Server.OURS,
                Map.of(TipcShuffleConfig.FIRST_FETCHES, "tcp")),
        OURS_PROBE("ours, probing first", TipcShuffleConsumer.class, Server.OURS,
                Map.of(TipcShuffleConfig.FIRST_FETCHES, "probe"));

        final String label;
        @SuppressWarnings("rawtypes")
        final Class<? extends ShuffleConsumerPlugin> consumer;
        final Server server;
        final Map<String, String> settings;

        /**
         * Ours fetches over TIPC, and above the default of {@link TipcShuffleConfig#TCP_ABOVE_BYTES} over HTTP/TCP
         * once the first large map output's header arrived over TIPC, with no stream connected ahead unless the arm
         * connects ahead, and probing first the same way; all on TIPC fetches over TIPC; first fetches over TCP fetches
         * over TIPC after its first map output at most that size and never above it; the others over HTTP/TCP.
         */
        boolean transportsAsExpected(Row row) {
            return switch (this) {
                case OURS, OURS_AHEAD, OURS_PROBE -> (this == OURS_AHEAD || row.streamsOpenedAhead == 0)
                        && (row.size > TipcShuffleConfig.DEFAULT_TCP_ABOVE_BYTES
                        ? row.tcpForLargeOutputs > 0 && row.tipcMapOutputs + row.tcpMapOutputs > 0
                        : row.tcpMapOutputs == 0);
                case OURS_ALL_TIPC -> row.tcpMapOutputs == 0;
                case OURS_TCP_FIRST -> row.size > TipcShuffleConfig.DEFAULT_TCP_ABOVE_BYTES
                        ? row.tipcMapOutputs == 0 : row.tcpMapOutputs > 0; // the first wave may fetch every host
                default -> row.tipcMapOutputs == 0;
            };
        }

        @SuppressWarnings("rawtypes")
        Arm(String label, Class<? extends ShuffleConsumerPlugin> consumer, Server server, Map<String, String> settings) {
            this.label = label;
            this.consumer = consumer;
            this.server = server;
            this.settings = settings;
        }
    }

    /** One arm's shuffle of one round. */
    record Row(int size, int round, Arm arm, double copyMs, double copyCpuMs, double shuffleMs, double reducerCpuMs,
               double jitCpuMs, double vmThreadCpuMs,
               double reducerMachineCpuMs, double servingCpuMs, double sendersCpuMs, double reducerMinsn,
               double sendersMinsn, long frames, long tipcMapOutputs, long tcpMapOutputs, long tcpForLargeOutputs,
               long streamsOpenedAhead, long streamsAheadUsed, long records, long checksum) {
    }

    /** The per-row metrics the summary compares, with their units. */
    record Metric(String name, ToDoubleFunction<Row> value) {
    }

    static final List<Metric> METRICS = List.of(
            new Metric("copy phase (wall)", Row::copyMs),
            new Metric("copy phase, reducer JVM CPU", Row::copyCpuMs),
            new Metric("shuffle with final merge (wall)", Row::shuffleMs),
            new Metric("reducer machine CPU", Row::reducerMachineCpuMs),
            new Metric("reducer machine, million instructions", Row::reducerMinsn),
            new Metric("serving threads' CPU", Row::servingCpuMs),
            new Metric("sender machines' CPU", Row::sendersCpuMs),
            new Metric("sender machines, million instructions", Row::sendersMinsn),
            new Metric("Ethernet frames at the reducer", r -> r.frames),
            new Metric("reducer JVM's JIT compiler threads' CPU", Row::jitCpuMs),
            new Metric("reducer JVM's VM thread CPU", Row::vmThreadCpuMs));

    private ShuffleIncastBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        // A reduce task's shuffle logs every map output at INFO: thousands of lines a round.
        Logger.getRootLogger().setLevel(Level.WARN);
        Logger.getLogger(MetricsSystemImpl.class).setLevel(Level.ERROR);
        if (args[0].equals("serve")) {
            serve(Integer.parseInt(args[1]), Path.of(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
        } else {
            run(Path.of(args[1]), Integer.parseInt(args[2]), List.of(args[3].split(",")), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), Args.ints(args[6]), Integer.parseInt(args[7]));
        }
    }

    /** The ids of the maps whose outputs NodeManager {@code host} (counted from 0 over all senders) keeps. */
    static List<String> mapsOf(int host, int maps) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < maps; i++) {
            ids.add(ShuffleWire.map(host * maps + i));
        }
        return ids;
    }

    /**
     * A sender machine: answers machine 1's requests until it closes the control connection. Machine {@code machine}
     * (2 and up) holds NodeManagers {@code (machine - 2) * hosts} and on.
     */
    private static void serve(int controlPort, Path workDir, int machine, int hosts, int maps) throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true); // many handlers in one JVM register their sources many times
        List<ShuffleHandler> handlers = new ArrayList<>();
        try {
            ControlConnection.serve(controlPort, w -> switch (w[0]) {
                case "size" -> { // size BYTES REDUCES TOKEN: map outputs, then each NodeManager's handlers
                    stopAll(handlers);
                    deleteTree(workDir);
                    List<String> ids = new ArrayList<>();
                    int first = (machine - 2) * hosts;
                    for (int h = first; h < first + hosts; h++) {
                        ids.addAll(mapsOf(h, maps));
                    }
                    MapOutputFixture outputs = MapOutputFixture.ofRecords(workDir, ids, Integer.parseInt(w[2]),
                            Integer.parseInt(w[1]), Base64.getDecoder().decode(w[3]));
                    StringBuilder reply = new StringBuilder();
                    for (int h = 0; h < hosts; h++) {
                        for (Server s : Server.values()) {
                            ShuffleHandler handler = outputs.serve(s.handler(), s.conf(), 0);
                            handlers.add(handler);
                            if (s == Server.OURS && !((TipcShuffleHandler) handler).isServingTipc()) {
                                throw new IllegalStateException("machine " + machine + "'s handler does not serve TIPC");
                            }
                            reply.append(ShuffleHandler.deserializeMetaData(handler.getMetaData())).append(' ');
                        }
                    }
                    yield reply.toString().strip();
                }
                case "cpu" -> ShuffleComparison.servingCpuNanos() + " " + CpuJiffies.busyNanos();
                default -> throw new IllegalArgumentException("unknown request: " + String.join(" ", w));
            });
        } finally {
            stopAll(handlers);
        }
    }

    private static void stopAll(List<ShuffleHandler> handlers) {
        handlers.forEach(ShuffleHandler::stop);
        handlers.clear();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The senders' serving threads' CPU and their machines' busy CPU, summed, in ns. */
    private static long[] sendersCpu(List<ControlConnection> senders) throws IOException {
        long[] sum = new long[2];
        for (ControlConnection c : senders) {
            String[] w = c.ask("cpu").split(" ");
            sum[0] += Long.parseLong(w[0]);
            sum[1] += Long.parseLong(w[1]);
        }
        return sum;
    }

    /**
     * Instructions the guests have executed ({@link GuestInstructions}): machine 1's, and machines 2 and up's summed.
     * The totals are at most 10 ms old: a pause lets the last of the work land in them.
     */
    private static long[] instructions(int senders) throws IOException, InterruptedException {
        Thread.sleep(2L * GuestInstructions.STALENESS_MILLIS);
        long[] counts = GuestInstructions.ofMachines(senders + 1);
        return new long[] {counts[0], Arrays.stream(counts, 1, counts.length).sum()};
    }

    /** Frames this machine's network interfaces sent and received, loopback aside. */
    static long frames() throws IOException {
        long frames = 0;
        try (Stream<Path> interfaces = Files.list(Path.of("/sys/class/net"))) {
            for (Path i : interfaces.filter(i -> !i.getFileName().toString().equals("lo")).toList()) {
                frames += Long.parseLong(Files.readString(i.resolve("statistics/rx_packets")).strip())
                        + Long.parseLong(Files.readString(i.resolve("statistics/tx_packets")).strip());
            }
        }
        return frames;
    }

    /** Machine 1: every size, the warm-up rounds, then the rounds, each arm once a round in a rotating order. */
    private static void run(Path out, int controlPort, List<String> senderIps, int hosts, int maps, int[] sizes,
                            int rounds) throws Exception {
        List<ControlConnection> senders = new ArrayList<>();
        for (String ip : senderIps) {
            senders.add(ControlConnection.connect(ip, controlPort));
        }
        byte[] password = new byte[20];
        new SecureRandom().nextBytes(password);
        SecretKey key = JobTokenSecretManager.createSecretKey(password);
        List<Row> rows = new ArrayList<>();
        Path reduceDir = Files.createTempDirectory("shuffle-incast-reduce");
        int hostCount = hosts * senders.size();
        for (int size : sizes) {
            long asked = System.nanoTime();
            Map<Server, List<MapOutputAt>> locations = new java.util.EnumMap<>(Server.class);
            for (Server s : Server.values()) {
                locations.put(s, new ArrayList<>());
            }
            for (int m = 0; m < senders.size(); m++) {
                ControlConnection c = senders.get(m);
                String[] ports = c.ask("size " + size + " " + REDUCES + " "
                        + Base64.getEncoder().encodeToString(password)).split(" ");
                for (int h = 0; h < hosts; h++) {
                    for (Server s : Server.values()) {
                        String tracker = "http://" + senderIps.get(m) + ":" + ports[h * Server.values().length + s.ordinal()];
                        for (String id : mapsOf(m * hosts + h, maps)) {
                            locations.get(s).add(new MapOutputAt(id, tracker));
                        }
                    }
                }
            }
            System.out.printf(Locale.ROOT, "%d B: %d NodeManagers' map outputs and handlers ready in %.1f s%n", size,
                    hostCount, (System.nanoTime() - asked) / 1e9);
            long expectedRecords = (long) hostCount * maps * Math.max(1, size / MapOutputFixture.RECORD_BYTES);
            for (int round = 1 - WARM_UP_ROUNDS; round <= rounds; round++) { // rounds up to 0 warm up and are not kept
                List<Arm> order = new ArrayList<>(List.of(Arm.values()));
                Collections.rotate(order, round);
                if (Math.floorMod(round, 2) == 1) {
                    Collections.reverse(order);
                }
                Long checksum = null;
                for (Arm arm : order) {
                    Row row = shuffle(arm, size, round, key, locations.get(arm.server), senders, reduceDir);
                    if (row.records != expectedRecords) {
                        throw new IllegalStateException(arm.label + " merged " + row.records + " records, not "
                                + expectedRecords);
                    }
                    if (checksum != null && checksum != row.checksum) {
                        throw new IllegalStateException(arm.label + "'s merged input differs from the other arms'");
                    }
                    checksum = row.checksum;
                    if (!arm.transportsAsExpected(row)) {
                        throw new IllegalStateException(arm.label + " fetched " + row.tipcMapOutputs
                                + " map outputs over TIPC and " + row.tcpMapOutputs + " over HTTP/TCP ("
                                + row.tcpForLargeOutputs + " requests there for large outputs; " + row.streamsOpenedAhead
                                + " streams connected ahead)");
                    }
                    System.out.printf(Locale.ROOT, "%8d B round %d %-17s copy %7.0f ms wall %7.0f ms CPU, with merge"
                                    + " %7.0f ms; serving CPU %6.0f ms; %6d frames%n", size, round, arm.label, row.copyMs,
                            row.copyCpuMs, row.shuffleMs, row.servingCpuMs, row.frames);
                    if (round > 0) {
                        rows.add(row);
                    }
                }
            }
            report(out, rows, senders.size(), hosts, maps, rounds);
        }
        for (ControlConnection c : senders) {
            c.close();
        }
    }

    private static Row shuffle(Arm arm, int size, int round, SecretKey key, List<MapOutputAt> maps,
                               List<ControlConnection> senders, Path reduceDir) throws Exception {
        JobConf job = new JobConf();
        job.setMapOutputKeyClass(BytesWritable.class);
        job.setMapOutputValueClass(BytesWritable.class);
        job.setNumReduceTasks(REDUCES);
        arm.settings.forEach(job::set);
        Path localDir = Files.createDirectories(reduceDir.resolve(arm.name() + "-" + round));
        System.gc(); // the previous arm's garbage is not this one's
        long[] serving = sendersCpu(senders);
        long[] instructions = instructions(senders.size());
        long frames = frames();
        long machine = CpuJiffies.busyNanos();
        JvmThreadsCpu jvm = JvmThreadsCpu.read();
        long cpu = OS.getProcessCpuTime();
        long start = System.nanoTime();
        Merged merged = ReduceTaskShuffle.run(arm.consumer, job, ShuffleWire.JOB, Math.floorMod(round, REDUCES), key,
                maps, localDir);
        long wall = System.nanoTime() - start;
        cpu = OS.getProcessCpuTime() - cpu;
        jvm = JvmThreadsCpu.read().since(jvm);
        machine = CpuJiffies.busyNanos() - machine;
        frames = frames() - frames;
        long[] instructionsAfter = instructions(senders.size());
        long[] servingAfter = sendersCpu(senders);
        deleteTree(localDir);
        return new Row(size, round, arm, merged.copyNanos() / 1e6, merged.copyCpuNanos() / 1e6, wall / 1e6, cpu / 1e6,
                jvm.compilerNanos() / 1e6, jvm.vmThreadNanos() / 1e6,
                machine / 1e6, (servingAfter[0] - serving[0]) / 1e6, (servingAfter[1] - serving[1]) / 1e6,
                (instructionsAfter[0] - instructions[0]) / 1e6, (instructionsAfter[1] - instructions[1]) / 1e6, frames,
                merged.counter(TipcShuffleCounter.TIPC_MAP_OUTPUTS), merged.counter(TipcShuffleCounter.TCP_MAP_OUTPUTS),
                merged.counter(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS),
                merged.counter(TipcShuffleCounter.STREAMS_OPENED_AHEAD), merged.counter(TipcShuffleCounter.STREAMS_AHEAD_USED),
                merged.records(), merged.checksum());
    }

    /** The median over rounds of {@code arm}'s metric over {@code base}'s in the same round. */
    static double[] ratios(List<Row> rows, int size, Arm arm, Arm base, ToDoubleFunction<Row> metric) {
        return rows.stream().filter(r -> r.size == size && r.arm == arm).mapToDouble(r ->
                metric.applyAsDouble(r) / rows.stream().filter(b -> b.size == size && b.arm == base && b.round == r.round)
                        .mapToDouble(metric).findFirst().orElseThrow()).toArray();
    }

    /** Each of {@code arms} over {@code base}, per metric: the median of rounds' ratios and its interval. */
    private static void ratioTable(StringBuilder summary, List<Row> rows, int size, Arm base, List<Arm> arms) {
        summary.append(String.format(Locale.ROOT, "%n| ÷ %s (95%% interval) |", base.label));
        METRICS.forEach(m -> summary.append(' ').append(m.name).append(" |"));
        summary.append("\n|---|").append("---|".repeat(METRICS.size())).append('\n');
        for (Arm arm : arms) {
            summary.append("| ").append(arm.label).append(" |");
            for (Metric m : METRICS) {
                double[] r = ratios(rows, size, arm, base, m.value);
                summary.append(String.format(Locale.ROOT, " %.2f (%s) |", Stats.median(java.util.Arrays.stream(r)),
                        Stats.medianInterval95(r).format("%.2f")));
            }
            summary.append('\n');
        }
    }

    static void report(Path out, List<Row> rows, int machines, int hostsPerMachine, int maps, int rounds)
            throws IOException {
        StringBuilder csv = new StringBuilder("partition_bytes,round,arm,copy_ms,copy_cpu_ms,shuffle_ms,reducer_cpu_ms,"
                + "jit_cpu_ms,vm_thread_cpu_ms,"
                + "reducer_machine_cpu_ms,serving_cpu_ms,senders_cpu_ms,reducer_minsn,senders_minsn,frames,tipc_map_outputs,"
                + "tcp_map_outputs,streams_opened_ahead,streams_ahead_used,records,checksum\n");
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT,
                    "%d,%d,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%d,%d,%x%n",
                    r.size, r.round, r.arm.name().toLowerCase(Locale.ROOT), r.copyMs, r.copyCpuMs, r.shuffleMs,
                    r.reducerCpuMs, r.jitCpuMs, r.vmThreadCpuMs, r.reducerMachineCpuMs, r.servingCpuMs, r.sendersCpuMs, r.reducerMinsn, r.sendersMinsn,
                    r.frames, r.tipcMapOutputs, r.tcpMapOutputs, r.streamsOpenedAhead, r.streamsAheadUsed,
                    r.records, r.checksum));
        }
        StringBuilder summary = new StringBuilder(String.format(Locale.ROOT, """
                %d sender machines of %d NodeManagers each (a shuffle handler per NodeManager and server
                configuration), %d maps per NodeManager; one reduce task's shuffle on machine 1 of one partition of
                each of the %d maps, in eight arms interleaved round
                by round (rotating order, reversed every other round) after %d warm-up rounds; %d rounds. Arms:
                **stock default** (stock `Shuffle`, `parallelcopies` 5, from stock `ShuffleHandler`s with keep-alive
                off, as both ship), **stock tuned** (`parallelcopies` %d, keep-alive on, as tuning guides set them),
                **ours** (`TipcShuffleConsumer` from `TipcShuffleHandler`s, defaults: TIPC, and HTTP/TCP from the
                header on of a map output above `%s`, %d B, and for the rest), **ours, all on TIPC** (ours with it 0),
                **ours over TCP** (ours with `%s=tcp`, the same handlers' HTTP/TCP side: our code without the transport),
                **ours, connecting ahead** (ours with `%s=true`: a TIPC stream connected to each map host as it
                becomes known, for its first fetch), **ours, first fetches over TCP** (ours with `%s=tcp`: HTTP/TCP
                until the first map output shows the partitions' size, TIPC after it if at most `%s`), **ours, probing
                first** (ours with `%s=probe`: one fetch over TIPC while the others wait for its first map output's
                header, which chooses the same way).

                Copy phase: from the consumer's `init` to the task's report that copying is done, before the final
                merge; its CPU is the reducer JVM's. Reducer and sender machines' CPU: every thread and softirq as
                their kernels count it (10 ms ticks). Instructions: what the machines' emulated CPUs executed
                (`tipc-vm --count-instructions`; kernel and user, every process, idle not counted: work done, not
                its cost in cache misses or stalls), read before and after each shuffle. The reducer JVM's JIT compiler
                threads and VM thread (safepoint operations, which include every collection of the serial collector;
                this JVM's collectors: %s): the JVM's own work within the shuffle, from each thread's run time in
                nanoseconds as the kernel counts it.
                Serving threads: %s. Frames: Ethernet frames sent and received
                at the reducer's machine. Every arm merged the same records (checked); medians over rounds, ratios
                are medians of each round's ratio with a 95%% bootstrap interval.
                """, machines, hostsPerMachine, maps, machines * hostsPerMachine * maps, WARM_UP_ROUNDS, rounds,
                TUNED_PARALLEL_COPIES, TipcShuffleConfig.TCP_ABOVE_BYTES, TipcShuffleConfig.DEFAULT_TCP_ABOVE_BYTES,
                TipcShuffleConfig.TRANSPORT, TipcShuffleConfig.CONNECT_AHEAD_ENABLED, TipcShuffleConfig.FIRST_FETCHES,
                TipcShuffleConfig.TCP_ABOVE_BYTES, TipcShuffleConfig.FIRST_FETCHES,
                String.join(" and ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(c -> "`" + c.getName() + "`").toList()),
                String.join(", ", ShuffleComparison.SERVING_THREADS.stream().map(t -> "`" + t.strip() + "`").toList())));
        List<Integer> sizes = rows.stream().map(Row::size).distinct().toList();
        for (int size : sizes) {
            summary.append(String.format(Locale.ROOT, "%n## Partitions of %d B%n%n| arm |", size));
            METRICS.forEach(m -> summary.append(' ').append(m.name).append(" |"));
            summary.append("\n|---|").append("---|".repeat(METRICS.size())).append('\n');
            for (Arm arm : Arm.values()) {
                List<Row> of = rows.stream().filter(r -> r.size == size && r.arm == arm).toList();
                summary.append("| ").append(arm.label).append(" |");
                METRICS.forEach(m -> summary.append(String.format(Locale.ROOT, " %.0f |", Stats.median(of, m.value))));
                summary.append('\n');
            }
            ratioTable(summary, rows, size, Arm.STOCK_DEFAULT, List.of(Arm.OURS, Arm.OURS_ALL_TIPC, Arm.OURS_TCP,
                    Arm.OURS_AHEAD, Arm.OURS_TCP_FIRST, Arm.OURS_PROBE, Arm.STOCK_TUNED));
            ratioTable(summary, rows, size, Arm.STOCK_TUNED, List.of(Arm.OURS, Arm.OURS_ALL_TIPC, Arm.OURS_TCP,
                    Arm.OURS_AHEAD, Arm.OURS_TCP_FIRST, Arm.OURS_PROBE, Arm.STOCK_DEFAULT));
            ratioTable(summary, rows, size, Arm.OURS, List.of(Arm.OURS_AHEAD));
            // What TIPC costs or buys a task against our own client over HTTP/TCP, with each way to the first fetches.
            ratioTable(summary, rows, size, Arm.OURS_TCP, List.of(Arm.OURS, Arm.OURS_TCP_FIRST, Arm.OURS_PROBE));
            List<Row> ahead = rows.stream().filter(r -> r.size == size && r.arm == Arm.OURS_AHEAD).toList();
            summary.append(String.format(Locale.ROOT, "%nOurs, connecting ahead, connected a median of %.0f TIPC streams"
                    + " ahead per shuffle,"
                    + " %.0f of which a host's first fetch took.%n", Stats.median(ahead, r -> r.streamsOpenedAhead),
                    Stats.median(ahead, r -> r.streamsAheadUsed)));
        }
        List<String> labels = sizes.stream().map(s -> s >= 1 << 20 ? s / (1 << 20) + " MiB" : s / 1024 + " KiB").toList();
        for (Metric m : List.of(METRICS.get(0), METRICS.get(1), METRICS.get(4))) {
            CategoryChart chart = Charts.bars(m.name + " against stock default", "partition",
                    "ratio to stock default (median of rounds)");
            for (Arm arm : List.of(Arm.STOCK_TUNED, Arm.OURS, Arm.OURS_ALL_TIPC, Arm.OURS_TCP, Arm.OURS_TCP_FIRST,
                    Arm.OURS_PROBE)) {
                chart.addSeries(arm.label, labels, sizes.stream().map(s ->
                        Stats.median(java.util.Arrays.stream(ratios(rows, s, arm, Arm.STOCK_DEFAULT, m.value)))).toList());
            }
            Charts.save(out, m.name.replaceAll("[^a-z]+", "-").replaceAll("^-|-$", ""), chart);
        }
        Results.write(out, "shuffle-incast", csv, summary.toString());
    }
}
