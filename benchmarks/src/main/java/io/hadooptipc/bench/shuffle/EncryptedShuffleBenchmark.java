package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.bench.common.ControlConnection;
import io.hadooptipc.bench.common.CpuJiffies;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.harness.FetchCost.Fetching;
import io.hadooptipc.shuffle.harness.FetchCost;
import io.hadooptipc.shuffle.harness.ShuffleComparison;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.LinkKey;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import javax.crypto.SecretKey;

/**
 * The cost of encrypted shuffle over TIPC, across two testbed machines (TIPC data crosses a
 * real link, and with a key the kernel's AEAD encrypts it): our handler on machine 2 serves the
 * same map outputs, a reducer's fetches come from machine 1, one map output per request, in
 * five modes interleaved round by round (each round starting at the next mode): stock HTTP and
 * stock HTTPS over TCP (the stock fetcher's connections), plain TIPC, TIPC over links the kernel
 * encrypts ({@code tipc node set key} on both nodes, {@code mapreduce.shuffle.tipc.links.encrypted}
 * with SSL on) and TLS over TIPC (SSL on, links not declared encrypted; skipped where the server
 * does not serve it). Per mode: wall time and the fetching thread's CPU per fetch, the serving
 * threads' CPU on machine 2 per fetch, and over which transport each map output came (our
 * counters), every map output checked byte for byte against the file served.
 * <p>Machine 2: {@code serve CONTROL_PORT OUTPUTS_DIR}; machine 1: {@code run OUT SERVER_IP
 * CONTROL_PORT ROUNDS SIZE:FETCHES...}. Machine 1 drives machine 2 over a TCP control connection
 * (no TIPC key affects it): map outputs and handlers per size, serving CPU, the node's key.
 */
public final class EncryptedShuffleBenchmark {
    static final String TLS_UNAVAILABLE = "TLS over TIPC: not available in this build";

    /** Machine 2's handlers: one per server configuration the modes need. */
    enum Server {
        PLAIN, LINKS_ENCRYPTED, SSL;

        YarnConfiguration conf() {
            YarnConfiguration conf = new YarnConfiguration();
            conf.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, this != PLAIN);
            conf.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, this == LINKS_ENCRYPTED);
            return conf;
        }
    }

    enum Mode {
        HTTP("stock HTTP/TCP", Server.PLAIN, false, false),
        HTTPS("stock HTTPS/TCP", Server.SSL, true, false),
        TIPC("plain TIPC", Server.PLAIN, false, true),
        TIPC_AEAD("TIPC, encrypted links", Server.LINKS_ENCRYPTED, true, true),
        TLS_TIPC("TLS over TIPC", Server.SSL, true, true);

        final String label;
        final Server server;
        final boolean ssl;
        final boolean ours;

        Mode(String label, Server server, boolean ssl, boolean ours) {
            this.label = label;
            this.server = server;
            this.ssl = ssl;
            this.ours = ours;
        }

        /** The job's settings as a reducer of this mode has them. */
        JobConf job() {
            JobConf job = new JobConf();
            job.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, ssl);
            job.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, this == TIPC_AEAD);
            // Every mode of ours is measured on TIPC, whatever the partition size.
            job.setLong(TipcShuffleConfig.TCP_ABOVE_BYTES, 0);
            return job;
        }

        Fetching fetching() throws IOException {
            return ours ? Fetching.ours(job()) : Fetching.stock(job());
        }

        /** Whether the link must be keyed (true), unkeyed (false), or either (null: TCP). */
        Boolean keyed() {
            return ours ? this == TIPC_AEAD : null;
        }
    }

    /**
     * One mode's series: the fetching thread's measures, machine 2's serving threads' CPU, and each
     * machine's CPU as its kernel counts it (every thread, softirq too, where TIPC's AEAD may run).
     */
    record Row(int size, int round, Mode mode, FetchCost.Measured m, long servingCpuNanos, long machinesCpuNanos) {
        double wallMicros() {
            return m.wallNanos() / 1e3 / m.fetches();
        }

        double cpuMicros() {
            return m.cpuNanos() / 1e3 / m.fetches();
        }

        double servingCpuMicros() {
            return servingCpuNanos / 1e3 / m.fetches();
        }

        double machinesCpuMicros() {
            return machinesCpuNanos / 1e3 / m.fetches();
        }

        String transport() {
            return !mode.ours ? "tcp (stock)" : m.tcpMapOutputs() == 0 ? "tipc" : m.tipcMapOutputs() == 0 ? "tcp" : "both";
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("serve")) {
            serve(Integer.parseInt(args[1]), Path.of(args[2]));
        } else {
            run(Path.of(args[1]), args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    List.of(args).subList(5, args.length));
        }
    }

    /** Machine 2: answers machine 1's requests until it closes the control connection. */
    private static void serve(int controlPort, Path outputsDir) throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true); // three handlers in one JVM register their sources thrice
        Map<Server, TipcShuffleHandler> handlers = new HashMap<>();
        try {
            ControlConnection.serve(controlPort, w -> switch (w[0]) {
                case "size" -> { // size BYTES MAPS: map outputs and a handler per server configuration
                    Path dir = outputsDir.resolve(w[1]);
                    MapOutputFixture outputs = new MapOutputFixture(dir, Integer.parseInt(w[2]), 1,
                            Integer.parseInt(w[1]));
                    StringBuilder reply = new StringBuilder(dir + " "
                            + Base64.getEncoder().encodeToString(outputs.key.getEncoded()));
                    for (Server s : Server.values()) {
                        TipcShuffleHandler h = outputs.serve(new TipcShuffleHandler(), s.conf(), 0);
                        handlers.put(s, h);
                        reply.append(' ').append(ShuffleHandler.deserializeMetaData(h.getMetaData()))
                                .append(' ').append(h.isServingTipc());
                    }
                    yield reply.toString();
                }
                case "cpu" -> ShuffleComparison.servingCpuNanos() + " " + CpuJiffies.busyNanos();
                case "key" -> {
                    if (w[1].equals("on")) {
                        LinkKey.set();
                    } else {
                        LinkKey.flush();
                    }
                    yield "ok";
                }
                case "stop" -> {
                    stopAll(handlers);
                    yield "ok";
                }
                default -> throw new IllegalArgumentException("unknown request: " + String.join(" ", w));
            });
        } finally {
            stopAll(handlers);
            LinkKey.flush();
        }
    }

    private static void stopAll(Map<Server, TipcShuffleHandler> handlers) {
        handlers.values().forEach(TipcShuffleHandler::stop);
        handlers.clear();
    }

    /** Machine 1: every size, every round, every mode, then the report. */
    private static void run(Path out, String serverIp, int controlPort, int rounds, List<String> sizes) throws Exception {
        List<Row> rows = new ArrayList<>();
        List<Mode> modes = new ArrayList<>(List.of(Mode.values()));
        try (ControlConnection control = ControlConnection.connect(serverIp, controlPort)) {
            System.out.printf("machine 2 listening, %.1f s into this JVM%n", uptimeSeconds());
            Link link = new Link(control);
            link.key(false);
            for (String sizeAndFetches : sizes) {
                int size = Integer.parseInt(sizeAndFetches.split(":")[0]);
                int fetches = Integer.parseInt(sizeAndFetches.split(":")[1]);
                long asked = System.nanoTime();
                String[] reply = control.ask("size " + size + " " + fetches).split(" ");
                System.out.printf("%d B: machine 2's map outputs and handlers ready in %.1f s%n", size,
                        (System.nanoTime() - asked) / 1e9);
                Path served = Path.of(reply[0]); // in the checkout, which both machines share
                SecretKey key = JobTokenSecretManager.createSecretKey(Base64.getDecoder().decode(reply[1]));
                Map<Server, Integer> ports = new HashMap<>();
                for (Server s : Server.values()) {
                    ports.put(s, Integer.parseInt(reply[2 + 2 * s.ordinal()]));
                    boolean tipc = Boolean.parseBoolean(reply[3 + 2 * s.ordinal()]);
                    if (!tipc && s == Server.SSL && modes.remove(Mode.TLS_TIPC)) {
                        System.out.println(TLS_UNAVAILABLE + " (the handler with SSL on does not serve TIPC)");
                    } else if (!tipc && s != Server.SSL) {
                        throw new IllegalStateException("machine 2's " + s + " handler does not serve TIPC");
                    }
                }
                List<String> mapIds = MapOutputFixture.mapIds(fetches);
                Map<String, byte[]> files = new HashMap<>();
                for (String mapId : mapIds) {
                    files.put(mapId, Files.readAllBytes(MapOutputFixture.outputFile(served, mapId)));
                }
                Series series = new Series(serverIp, ports, key, mapIds, files, link, control);
                for (Mode mode : List.copyOf(modes)) { // warm-up, and whether TLS over TIPC is spoken
                    if (mode != Mode.TLS_TIPC) {
                        series.measure(mode, 0, size);
                        continue;
                    }
                    String unavailable;
                    try {
                        Row warm = series.measure(mode, 0, size);
                        unavailable = warm.m().tcpMapOutputs() > 0 ? "the fetches went over HTTPS/TCP" : null;
                    } catch (Exception e) { // a server that refuses it, or speaks plaintext over TIPC
                        unavailable = "the fetch over TIPC failed: " + e;
                    }
                    if (unavailable != null) {
                        System.out.println(TLS_UNAVAILABLE + " (" + unavailable + ")");
                        modes.remove(mode);
                    }
                }
                for (int round = 1; round <= rounds; round++) {
                    for (int i = 0; i < modes.size(); i++) {
                        Mode mode = modes.get((round - 1 + i) % modes.size());
                        Row row = series.measure(mode, round, size);
                        rows.add(row);
                        System.out.printf(Locale.ROOT, "%8d B round %d %-22s %9.1f us/fetch wall, %8.1f us CPU,"
                                        + " %8.1f us serving CPU, %s%n", size, round, mode.label, row.wallMicros(),
                                row.cpuMicros(), row.servingCpuMicros(), row.transport());
                    }
                }
                control.ask("stop");
            }
            link.key(false);
        }
        report(out, rows, rounds, sizes, modes);
    }

    /** Whether the TIPC link between the machines is keyed: both ends set or flush their key, m2 first. */
    private static final class Link {
        private final ControlConnection control;
        private Boolean keyed;

        Link(ControlConnection control) {
            this.control = control;
        }

        /** Keys the link or unkeys it, unless it is so already; the link may reset under the change. */
        void key(boolean on) throws Exception {
            if (Boolean.valueOf(on).equals(keyed)) {
                return;
            }
            control.ask("key " + (on ? "on" : "off"));
            if (on) {
                LinkKey.set();
            } else {
                LinkKey.flush();
            }
            keyed = on;
            LinkKey.awaitLink(Duration.ofMinutes(1));
        }
    }

    /** One mode's series of fetches of every map output, with machine 2's serving CPU around it. */
    private record Series(String serverIp, Map<Server, Integer> ports, SecretKey key, List<String> mapIds,
                          Map<String, byte[]> files, Link link, ControlConnection control) {
        Row measure(Mode mode, int round, int size) throws Exception {
            int port = ports.get(mode.server);
            if (mode.keyed() != null) {
                link.key(mode.keyed());
                Tipc.awaitPublished(ShuffleServiceName.of(InetAddress.getByName(serverIp), port)
                        .tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Duration.ofMinutes(1));
            }
            try (Fetching fetching = mode.fetching()) {
                String[] before = control.ask("cpu").split(" ");
                long machine1 = CpuJiffies.busyNanos();
                FetchCost.Measured m = fetching.fetchEach(mode.ssl ? "https" : "http", serverIp, port, key, mapIds,
                        files::get);
                machine1 = CpuJiffies.busyNanos() - machine1;
                String[] after = control.ask("cpu").split(" ");
                Row row = new Row(size, round, mode, m, Long.parseLong(after[0]) - Long.parseLong(before[0]),
                        machine1 + Long.parseLong(after[1]) - Long.parseLong(before[1]));
                if (mode.ours && mode != Mode.TLS_TIPC && m.tipcMapOutputs() != m.fetches()) {
                    throw new IllegalStateException(mode.label + ": " + m.tcpMapOutputs() + " of " + m.fetches()
                            + " map outputs came over HTTP/TCP, not TIPC");
                }
                return row;
            }
        }
    }

    private static double uptimeSeconds() {
        return ManagementFactory.getRuntimeMXBean().getUptime() / 1e3;
    }

    static void report(Path out, List<Row> rows, int rounds, List<String> sizes, List<Mode> modes)
            throws Exception {
        StringBuilder csv = new StringBuilder("partition_bytes,round,mode,fetches,wall_us_per_fetch,cpu_us_per_fetch,"
                + "serving_cpu_us_per_fetch,machines_cpu_us_per_fetch,tipc_map_outputs,tcp_map_outputs,streams_opened\n");
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%s,%d,%.1f,%.1f,%.1f,%.1f,%d,%d,%d%n", r.size, r.round,
                    r.mode.name().toLowerCase(Locale.ROOT), r.m.fetches(), r.wallMicros(), r.cpuMicros(),
                    r.servingCpuMicros(), r.machinesCpuMicros(), r.m.tipcMapOutputs(), r.m.tcpMapOutputs(),
                    r.m.streamsOpened()));
        }
        StringBuilder summary = new StringBuilder(String.format(Locale.ROOT, """
                Our handler (`TipcShuffleHandler`, serving HTTP/TCP through stock's pipeline and TIPC) on machine 2,
                a reducer's fetches from machine 1, one map output per request; rounds: %d, the modes interleaved
                (each round starting at the next), after one warm-up series of each. Modes: stock HTTP and stock
                HTTPS over TCP (the stock fetcher's connections; HTTPS with a self-signed key pair set in
                ssl-server.xml and ssl-client.xml), plain TIPC (ours), TIPC over links the kernel encrypts
                (`tipc node set key`, gcm(aes), on both nodes; `mapreduce.shuffle.tipc.links.encrypted` with SSL
                on) and TLS over TIPC (SSL on, links not declared encrypted). Each side keeps its default
                connections: stock's keep-alive is off (a TCP connection, and for HTTPS a TLS handshake, per fetch),
                ours keeps a TIPC stream per host (streams opened in results.csv).

                Per fetch: wall time; the fetching thread's CPU (client); machine 2's serving threads' CPU
                (%s); and both machines' CPU as their kernels count it (every thread and softirq, where the
                kernel's AEAD runs for TIPC; 10 ms ticks). Medians over rounds; ratios are medians of each round's
                ratio. Every map output was checked byte for byte against the file served; our modes' map outputs
                are counted by transport (`over`), and one over HTTP/TCP fails a TIPC mode.
                %s""", rounds, String.join(", ", ShuffleComparison.SERVING_THREADS.stream()
                .map(t -> "`" + t.strip() + "`").toList()),
                modes.contains(Mode.TLS_TIPC) ? "" : "\n" + TLS_UNAVAILABLE + ": its mode is left out.\n"));
        List<ToDoubleFunction<Row>> metrics = List.of(Row::wallMicros, Row::cpuMicros, Row::servingCpuMicros,
                Row::machinesCpuMicros);
        String columns = " wall | client CPU | serving CPU | machines' CPU |";
        for (String s : sizes) {
            int size = Integer.parseInt(s.split(":")[0]);
            summary.append(String.format(Locale.ROOT, "%n## %d B, %s fetches per series%n%n| mode |%s over |%n"
                    + "|---|---|---|---|---|---|%n", size, s.split(":")[1], columns));
            for (Mode mode : modes) {
                List<Row> of = rows.stream().filter(r -> r.size == size && r.mode == mode).toList();
                summary.append("| ").append(mode.label).append(" |");
                metrics.forEach(metric -> summary.append(String.format(Locale.ROOT, " %.0f us |", Stats.median(of, metric))));
                summary.append(' ').append(String.join(", ", of.stream().map(Row::transport).distinct().toList()))
                        .append(" |\n");
            }
            for (Mode base : List.of(Mode.TIPC, Mode.HTTPS)) {
                summary.append(String.format(Locale.ROOT, "%n| ÷ %s |%s%n|---|---|---|---|---|%n", base.label, columns));
                for (Mode mode : modes) {
                    summary.append("| ").append(mode.label).append(" |");
                    metrics.forEach(metric -> summary.append(String.format(Locale.ROOT, " %.2f |",
                            ratio(rows, size, mode, base, metric))));
                    summary.append('\n');
                }
            }
        }
        CategoryChart wall = Charts.bars("Wall time per fetch against plain TIPC", "partition (bytes)",
                "ratio to plain TIPC (median of rounds)");
        CategoryChart cpu = Charts.bars("Both machines' CPU per fetch against plain TIPC", "partition (bytes)",
                "ratio to plain TIPC (median of rounds)");
        List<String> sizeLabels = sizes.stream().map(s -> s.split(":")[0]).toList();
        for (Mode mode : modes) {
            wall.addSeries(mode.label, sizeLabels, sizeLabels.stream()
                    .map(s -> ratio(rows, Integer.parseInt(s), mode, Mode.TIPC, Row::wallMicros)).toList());
            cpu.addSeries(mode.label, sizeLabels, sizeLabels.stream()
                    .map(s -> ratio(rows, Integer.parseInt(s), mode, Mode.TIPC, Row::machinesCpuMicros)).toList());
        }
        Charts.save(out, "wall", wall);
        Charts.save(out, "cpu", cpu);
        Results.write(out, "encrypted-shuffle", csv, summary.toString());
    }

    /** The median over rounds of {@code mode}'s metric over {@code base}'s within each round. */
    static double ratio(List<Row> rows, int size, Mode mode, Mode base, ToDoubleFunction<Row> metric) {
        return Stats.median(rows.stream().filter(r -> r.size == size && r.mode == mode).mapToDouble(r ->
                metric.applyAsDouble(r) / rows.stream().filter(b -> b.size == size && b.mode == base && b.round == r.round)
                        .mapToDouble(metric).findFirst().orElseThrow()));
    }
}
