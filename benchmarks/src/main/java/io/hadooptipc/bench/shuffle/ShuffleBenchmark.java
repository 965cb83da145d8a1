package io.hadooptipc.bench.shuffle;

import static io.hadooptipc.bench.shuffle.SideBySide.CSV_HEADER;
import static io.hadooptipc.bench.shuffle.SideBySide.METRICS;
import static io.hadooptipc.bench.shuffle.SideBySide.compare;
import static io.hadooptipc.bench.shuffle.SideBySide.fallbacks;
import static io.hadooptipc.bench.shuffle.SideBySide.fmt;
import static io.hadooptipc.bench.shuffle.SideBySide.identical;
import static io.hadooptipc.bench.shuffle.SideBySide.partner;
import static io.hadooptipc.bench.shuffle.SideBySide.ratio;
import static io.hadooptipc.bench.shuffle.SideBySide.row;
import static io.hadooptipc.bench.shuffle.SideBySide.sum;
import static io.hadooptipc.bench.shuffle.SideBySide.total;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.bench.shuffle.SideBySide.Compared;
import io.hadooptipc.bench.shuffle.SideBySide.Metric;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.ShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Measured;
import io.hadooptipc.shuffle.harness.ShuffleComparison.ReduceAttempt;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Side;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;
import io.hadooptipc.shuffle.harness.ShuffleComparison;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * MapReduce jobs with the stock shuffle and ours, side by side on one cluster
 * (ShuffleComparison): shuffle phase time and CPU, job time, transport counters, TIPC bytes
 * between machines, and whether the outputs are byte-identical. Exits 1 if an output differs
 * or is wrong, 2 if this node has AF_TIPC yet our shuffle moved bytes over TCP.
 * <p>Arguments: {@code CLUSTER OUT ROUNDS SPEC...}. CLUSTER is {@code mini} (a MiniMRYarnCluster
 * in this JVM, on the local file system), {@code mini-hdfs} (the same on HDFS, a MiniDFSCluster)
 * or {@code testbed} (the real cluster of testbed/cluster/hadoop-cluster, from its machine 1:
 * environment {@code TIPC_TESTBED_MACHINES}, {@code HADOOP_CLUSTER_RUN}, {@code HADOOP_CLUSTER_NIC}).
 * ROUNDS is {@code N} (rounds 1 to N) or {@code K-N} (see {@link Rounds}). Each SPEC is
 * {@code job:maps:reduces:records} with job {@code wordcount} or {@code shuffle-heavy}; a SPEC
 * written {@code warm-up=job:maps:reduces:records} is run once with each shuffle before the
 * rounds and left out of the results.
 */
public final class ShuffleBenchmark {
    /**
     * The rounds a run measures: {@code N} is rounds 1 to N, {@code K-N} rounds K to N, for a series measured over
     * several sessions ({@link ShuffleSeries}) that goes on where the last session stopped.
     */
    record Rounds(int first, int last) {
        Rounds {
            if (first < 1 || last < first) {
                throw new IllegalArgumentException("rounds " + first + " to " + last + ": the first is 1 or more, the last no less");
            }
        }

        static Rounds parse(String text) {
            String[] f = text.split("-", -1);
            if (f.length > 2) {
                throw new IllegalArgumentException("ROUNDS is N or K-N, not " + text);
            }
            return f.length == 1 ? new Rounds(1, Integer.parseInt(f[0])) : new Rounds(Integer.parseInt(f[0]), Integer.parseInt(f[1]));
        }

        int count() {
            return last - first + 1;
        }

        @Override
        public String toString() {
            return first == 1 ? count() + (count() == 1 ? " round" : " rounds") : "rounds " + first + " to " + last;
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[1]);
        Rounds rounds = Rounds.parse(args[2]);
        List<String> specArgs = Arrays.asList(args).subList(3, args.length);
        List<Spec> specs = JobArgs.specs(specArgs);
        Optional<Spec> warmUp = JobArgs.warmUp(specArgs);
        boolean tipc = Tipc.availability().isAvailable();
        System.out.println("TIPC on this node: " + Tipc.availability());
        Path work = Files.createTempDirectory("shuffle-bench");
        List<Measured> runs = new ArrayList<>();
        // One task JVM per vCPU of a machine (all machines have as many as this one): under emulation, 8 maps at a
        // time on m2's 2 vCPUs took 436-568 s each, about 2.2 vCPU-minutes a map where the warm-up's 2 maps at a
        // time took 1 (54-68 s); the job's 32 maps then took 35 minutes.
        try (ShuffleCluster cluster = JobArgs.cluster(args[0], Runtime.getRuntime().availableProcessors())) {
            // Each side warms up once, so that neither loads its NodeManager serving path during a measured job.
            for (Side side : warmUp.isPresent() ? List.of(Side.STOCK, Side.OURS) : List.<Side>of()) {
                Measured m = ShuffleComparison.warmUp(cluster, work, warmUp.get(), side);
                System.out.printf("warm-up %-20s %-5s job %6.1f s, output %s (left out of the results)%n",
                        m.spec().name(), side.label, m.jobMillis() / 1e3, m.correct() ? "correct" : "WRONG");
            }
            ShuffleComparison.run(cluster, work, specs, rounds.first(), rounds.last(), Side.STOCK, Side.OURS, m -> {
                System.out.printf("round %d %-20s %-5s job %6.1f s, shuffle %6d ms (median reducer), %s, output %s%n",
                        m.round(), m.spec().name(), m.side().label, m.jobMillis() / 1e3,
                        (long) METRICS.get(0).value().applyAsDouble(m), transport(m), m.correct() ? "correct" : "WRONG");
                runs.add(m);
                // Written after every stock/ours pair: a run cut short (the VM's time limit) keeps what it measured.
                if (partner(runs, m).isPresent()) {
                    try {
                        report(out, cluster.description() + warmUp.map(w -> " Warm-up jobs (" + w.name()
                                + ", the stock shuffle, then ours) ran first on the fresh cluster and are left out.").orElse(""),
                                specs, runs, rounds, tipc);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
        }
        boolean allGood = runs.stream().allMatch(m -> m.correct() && identical(runs, m));
        // With TIPC islands, ours is right when its own island's map outputs came over TIPC and the others' over
        // HTTP/TCP by choice.
        String expected = System.getenv().getOrDefault("TIPC_TESTBED_ISLANDS", "1").equals("1")
                ? "tipc" : "tipc+tcp-other-island";
        boolean allTipc = runs.stream().filter(m -> m.side() == Side.OURS).allMatch(m -> transport(m).startsWith(expected));
        System.out.print(verdict(runs, allGood));
        System.exit(!allGood ? 1 : tipc && !allTipc ? 2 : 0);
    }

    /**
     * The closing lines: what went over which transport (and its share of our shuffled bytes), what crossed machines,
     * each job's partition size and ratios, what one run per job means, whether outputs match.
     */
    static String verdict(List<Measured> runs, boolean allGood) {
        List<Measured> ours = runs.stream().filter(m -> m.side() == Side.OURS).toList();
        StringBuilder s = new StringBuilder("\n== stock shuffle vs ours ==\n");
        long tipcBytes = total(ours, TipcShuffleCounter.TIPC_BYTES);
        long tcpBytes = total(ours, TipcShuffleCounter.TCP_BYTES);
        s.append(String.format("our shuffle: %d bytes in %d map outputs via TIPC, %d bytes in %d map outputs via TCP%n",
                tipcBytes, total(ours, TipcShuffleCounter.TIPC_MAP_OUTPUTS),
                tcpBytes, total(ours, TipcShuffleCounter.TCP_MAP_OUTPUTS)));
        if (tipcBytes + tcpBytes > 0) {
            s.append(String.format("share of our shuffled bytes: %s over TIPC, %s over HTTP/TCP%n",
                    percent(tipcBytes, tipcBytes + tcpBytes), percent(tcpBytes, tipcBytes + tcpBytes)));
        }
        s.append("requests over TCP by reason:");
        for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
            if (c.isFallback() || c == TipcShuffleCounter.TCP_BY_CONFIGURATION || c == TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS
                    || c == TipcShuffleCounter.TCP_OTHER_ISLAND) {
                s.append(' ').append(c.name()).append('=').append(total(ours, c));
            }
        }
        s.append('\n');
        if (ours.stream().allMatch(m -> m.crossMachineTipcBytes() >= 0)) {
            s.append(String.format("cross-machine TIPC bytes: %d (ours), %d (stock)%n",
                    ours.stream().mapToLong(Measured::crossMachineTipcBytes).sum(),
                    runs.stream().filter(m -> m.side() == Side.STOCK).mapToLong(Measured::crossMachineTipcBytes).sum()));
        }
        for (Spec spec : runs.stream().map(Measured::spec).distinct().toList()) {
            List<Measured> runsOfSpec = runs.stream().filter(m -> m.spec().equals(spec)).toList();
            List<Measured> oursOfSpec = runsOfSpec.stream().filter(m -> m.side() == Side.OURS).toList();
            long specTipc = total(oursOfSpec, TipcShuffleCounter.TIPC_BYTES);
            long specTcp = total(oursOfSpec, TipcShuffleCounter.TCP_BYTES);
            int partitions = spec.maps() * spec.reduces();
            s.append(String.format("%s: %d partition%s of %.1f KB on average%s; ours/stock: shuffle phase %s, reducers' shuffle "
                            + "CPU %s, NodeManager serving CPU %s%n", spec.name(), partitions, partitions == 1 ? "" : "s",
                    total(runsOfSpec, TaskCounter.REDUCE_SHUFFLE_BYTES) / 1024.0 / runsOfSpec.size() / partitions,
                    specTipc + specTcp > 0 ? ", " + percent(specTipc, specTipc + specTcp) + " of ours over TIPC" : "",
                    ratio(compare(runs, spec, METRICS.get(0)).ratio()), ratio(compare(runs, spec, METRICS.get(1)).ratio()),
                    ratio(compare(runs, spec, METRICS.get(2)).ratio())));
        }
        if (runs.stream().mapToInt(Measured::round).distinct().count() == 1) {
            s.append(ONE_PAIR).append('\n');
        }
        return s.append("output identical to stock: ").append(allGood ? "yes" : "no").append('\n').toString();
    }

    /** What the figures of one run per job and shuffle (bin/run's main job) mean. */
    static final String ONE_PAIR = "One run per job with each shuffle shows where ours sent the bytes and that its output is "
            + "stock's; its ratios come from a single pair, not a measurement (benchmarks/results/shuffle-incast "
            + "measures ours against stock, over rounds).";

    /** {@code part} as a whole percentage of {@code whole}: 0% and 100% only when exact. */
    static String percent(long part, long whole) {
        long p = Math.round(100.0 * part / whole);
        return (part == 0 ? 0 : part == whole ? 100 : Math.max(1, Math.min(99, p))) + "%";
    }

    private static void report(Path out, String cluster, List<Spec> allSpecs, List<Measured> runs, Rounds rounds,
                               boolean tipc) throws IOException {
        List<Spec> specs = allSpecs.stream().filter(s -> runs.stream()
                .anyMatch(m -> m.spec().equals(s) && partner(runs, m).isPresent())).toList();
        StringBuilder csv = new StringBuilder(CSV_HEADER).append('\n');
        for (Measured m : runs) {
            if (partner(runs, m).isEmpty()) {
                continue;
            }
            csv.append(String.join(",", String.valueOf(m.round()), m.spec().job().label(), String.valueOf(m.spec().maps()),
                    String.valueOf(m.spec().reduces()), m.side().label, transport(m), String.valueOf(m.jobMillis()),
                    fmt(Stats.median(m.reduces(), ReduceAttempt::shuffleMillis)), fmt(sum(m, ReduceAttempt::shuffleCpuMillis)),
                    String.valueOf(m.servingCpuMillis()), fmt(Stats.median(m.reduces(), ReduceAttempt::launchToShuffleEndMillis)),
                    fmt(sum(m, ReduceAttempt::cpuMillis)), String.valueOf(m.counter(TaskCounter.REDUCE_SHUFFLE_BYTES)),
                    String.valueOf(m.counter(TipcShuffleCounter.TIPC_BYTES)),
                    String.valueOf(m.counter(TipcShuffleCounter.TCP_BYTES)),
                    String.valueOf(m.counter(TipcShuffleCounter.TIPC_MAP_OUTPUTS)),
                    String.valueOf(m.counter(TipcShuffleCounter.TCP_MAP_OUTPUTS)), String.valueOf(fallbacks(m)),
                    String.valueOf(m.crossMachineTipcBytes()),
                    String.valueOf(m.correct()), String.valueOf(identical(runs, m)),
                    measured(SideBySide.millionsOf(m, 0, 1)), measured(SideBySide.millionsOf(m, 1, Integer.MAX_VALUE))))
                    .append('\n');
        }

        List<String> jobs = specs.stream().map(Spec::name).toList();
        CategoryChart time = Charts.bars("Shuffle phase time (median reducer), stock vs ours", "job", "ms");
        CategoryChart cpu = Charts.bars("Shuffle CPU: reducers' shuffle phase + NodeManager serving", "job and side", "CPU ms");
        List<String> cpuGroups = specs.stream().flatMap(s -> List.of(s.name() + " reducers", s.name() + " NM").stream()).toList();
        for (Side side : List.of(Side.STOCK, Side.OURS)) {
            boolean stock = side == Side.STOCK;
            time.addSeries(side.label, jobs, specs.stream().map(s -> (Number) compare(runs, s, METRICS.get(0)).of(stock)).toList());
            cpu.addSeries(side.label, cpuGroups, specs.stream().flatMap(s -> List.<Number>of(
                    compare(runs, s, METRICS.get(1)).of(stock), compare(runs, s, METRICS.get(2)).of(stock)).stream()).toList());
        }
        Charts.save(out, "plot", time);
        Charts.save(out, "plot-cpu", cpu);

        int planned = 2 * rounds.count() * allSpecs.size();
        String partial = runs.size() == planned ? "" : String.format("**Partial: %d of %d job runs done so far** (this "
                + "summary is rewritten after each stock/ours pair).%n%n", runs.size(), planned);
        Results.write(out, "shuffle", csv, partial + summary(cluster, specs, runs, rounds, tipc));
    }

    /** A figure for results.csv, -1 where it was not measured (NaN). */
    private static String measured(double value) {
        return Double.isNaN(value) ? "-1" : fmt(value);
    }

    /**
     * How our shuffle's bytes went: all over TIPC; over TIPC until a map output above
     * mapreduce.shuffle.tipc.tcp.above-bytes sent the rest over HTTP/TCP, with no fallback (tipc+tcp-for-large);
     * over TIPC within this node's TIPC island and over HTTP/TCP from the others, with no fallback (tipc+tcp-other-island);
     * all over TCP (fallback); or mixed. The stock one is HTTP/TCP.
     */
    static String transport(Measured m) {
        if (m.side() == Side.STOCK) {
            return "tcp";
        }
        long total = m.counter(TaskCounter.REDUCE_SHUFFLE_BYTES);
        if (m.counter(TipcShuffleCounter.TIPC_BYTES) == total) {
            return "tipc";
        }
        if (fallbacks(m) == 0 && m.counter(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS) > 0) {
            return "tipc+tcp-for-large";
        }
        if (fallbacks(m) == 0 && m.counter(TipcShuffleCounter.TCP_OTHER_ISLAND) > 0
                && m.counter(TipcShuffleCounter.TIPC_BYTES) > 0) {
            return "tipc+tcp-other-island";
        }
        return m.counter(TipcShuffleCounter.TCP_BYTES) == total ? "tcp-fallback" : "mixed";
    }

    private static String summary(String cluster, List<Spec> specs, List<Measured> runs, Rounds rounds, boolean tipc) {
        StringBuilder s = new StringBuilder();
        s.append(String.format("%s Every job ran with the stock `Shuffle` and with our `TipcShuffleConsumer`, on the same "
                        + "input, interleaved (%s; the side that goes first alternates from job to job and round to round, so each job's rounds run in ABBA order). Reducers "
                        + "start after the last map; no speculative tasks. Task JVMs of both sides: `%s`.%n%n", cluster,
                rounds, ShuffleComparison.TASK_JVM_OPTS));
        boolean acrossMachines = runs.stream().allMatch(m -> m.crossMachineTipcBytes() >= 0);
        s.append(!tipc
                ? "Transport: **TCP fallback** for ours: this machine has no AF_TIPC, so our fetchers fall back to HTTP/TCP "
                  + "as designed (`FALLBACK_TIPC_UNAVAILABLE`); this run only checks the pipeline, it compares no transports.\n\n"
                : acrossMachines
                ? "Transport: real TIPC links between the machines. Cross-machine TIPC bytes are counted by the kernel, not "
                  + "by us: a tc filter on m1's NIC counts TIPC frames (ethertype 0x88ca, or the UDP bearer's datagrams) other than the link's own "
                  + "supervision, before and after each job.\n\n"
                : "Transport: real TIPC, **node-local**: one machine holds map outputs and reducers.\n\n");
        s.append("Shuffle phase = wall time of the shuffle consumer's `run()` in each reducer (first fetch to merged "
                + "reducer input; counted by `TimedShuffleConsumer`, which wraps either shuffle), median over reducers; its "
                + "CPU is the reducer JVM's CPU during `run()`, summed over reducers. NodeManager serving CPU = CPU time "
                + "of the handler's threads (stock's Netty workers, the TIPC event loops, readahead) during the job. "
                + "\"Launch to shuffle end\" is the job history's `shuffleFinishTime - startTime` per reduce attempt, which "
                + "includes the task JVM's start-up."
                + (runs.stream().allMatch(m -> m.machineInstructions().length > 0)
                ? " Instructions: what each machine's emulated CPUs executed from just before the job's submission to its "
                  + "end (`tipc-vm --count-instructions`), kernel and user, every process on the machine: the shuffle's share"
                  + " of a job's work, and the same daemons' background work on both sides."
                : "")
                + "\n\n");
        for (Spec spec : specs) {
            s.append(String.format("## %s: %d maps x %d reducers, %d records per map%n%n", spec.name(), spec.maps(),
                    spec.reduces(), spec.records()));
            s.append(String.format("%d partitions (map output segments, one per map and reducer) of %.1f KB on average "
                            + "(shuffled bytes per partition, median over runs).%n%n", spec.maps() * spec.reduces(),
                    Stats.median(runs.stream().filter(m -> m.spec().equals(spec)).mapToDouble(
                            m -> m.counter(TaskCounter.REDUCE_SHUFFLE_BYTES) / 1024.0 / (spec.maps() * spec.reduces())))));
            s.append("| metric | stock | ours | ours/stock (median of per-round ratios) | 95% interval (bootstrap) |\n"
                    + "|---|---:|---:|---:|---:|\n");
            for (Metric metric : METRICS) {
                s.append(row(runs, spec, metric, Side.STOCK));
            }
            List<Measured> ours = runs.stream().filter(m -> m.spec().equals(spec) && m.side() == Side.OURS).toList();
            s.append(String.format("%nOurs, summed over rounds: %d of %d shuffled bytes over TIPC, %d over TCP; "
                            + "%d map outputs via TIPC, %d via TCP; %d fallback requests; %s. Transport: %s. "
                            + "Output byte-identical to the stock shuffle's in every round: %s; equal to the expected "
                            + "output computed from the input: %s.%n%n",
                    total(ours, TipcShuffleCounter.TIPC_BYTES), total(ours, TaskCounter.REDUCE_SHUFFLE_BYTES),
                    total(ours, TipcShuffleCounter.TCP_BYTES), total(ours, TipcShuffleCounter.TIPC_MAP_OUTPUTS),
                    total(ours, TipcShuffleCounter.TCP_MAP_OUTPUTS), ours.stream().mapToLong(SideBySide::fallbacks).sum(),
                    acrossMachines ? String.format("%d bytes of TIPC frames crossed machines (the stock runs: %d)",
                            ours.stream().mapToLong(Measured::crossMachineTipcBytes).sum(),
                            runs.stream().filter(m -> m.spec().equals(spec) && m.side() == Side.STOCK)
                                    .mapToLong(Measured::crossMachineTipcBytes).sum())
                            : "one machine, no TIPC link crossed",
                    ours.stream().map(ShuffleBenchmark::transport).distinct().collect(Collectors.joining(", ")),
                    ours.stream().allMatch(m -> identical(runs, m)) ? "yes" : "**NO**",
                    runs.stream().filter(m -> m.spec().equals(spec)).allMatch(Measured::correct) ? "yes" : "**NO**"));
        }
        s.append(seedComparison(specs, runs, tipc));
        return s.toString();
    }

    private static String seedComparison(List<Spec> specs, List<Measured> runs, boolean tipc) {
        StringBuilder s = new StringBuilder("## Against the seed paper\n\n");
        s.append("The seed (Yoo, Chung, Kim: TIPC for Hadoop's network I/O) measured raw message transfers, not Hadoop: "
                + "a reducer fetching from up to 48 senders at once over Gigabit Ethernet, where TIPC had about 10% (up to "
                + "16%) more throughput than CUBIC-TCP for messages of 8 KB and less, and 7-15% less CPU for 16 KB and "
                + "less, the partition sizes it expects on large clusters (3-4 KB). Here the whole stock shuffle path runs "
                + "(HTTP request, job-token HMAC, `ShuffleHeader` framing, merge) with only the transport changed, on "
                + "emulated machines: ");
        if (!tipc) {
            return s.append("this run had no TIPC, so it says nothing about the seed's figures.\n").toString();
        }
        for (Spec spec : specs) {
            Compared time = compare(runs, spec, METRICS.get(0));
            Compared cpu = compare(runs, spec, METRICS.get(1));
            Compared serving = compare(runs, spec, METRICS.get(2));
            s.append(String.format("%s: shuffle phase ours/stock %.2f (%s), reducers' shuffle CPU %.2f, NodeManager "
                            + "serving CPU %.2f. ", spec.name(), time.ratio(),
                    time.ratio() < 1 ? "ours faster" : "ours not faster", cpu.ratio(), serving.ratio()));
        }
        return s.append("The direction can be compared with the seed, not the size: emulated CPUs inflate fixed costs "
                + "(class loading, JNI set-up in fresh task JVMs) against per-byte ones, emulated Ethernet moves a few MiB/s, "
                + "and each reducer has only a few map outputs to fetch.\n").toString();
    }

    private ShuffleBenchmark() {
    }
}
