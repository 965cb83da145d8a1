package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.bench.shuffle.SideBySide.Metric;
import io.hadooptipc.shuffle.TipcShuffleConfig;
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
import java.util.stream.Stream;

/**
 * Our shuffle with TIPC stream reuse on and off ({@link Side#OURS} against {@link Side#OURS_REUSE_OFF}), side by side
 * on the testbed cluster, on jobs whose maps finish over time while the reducers fetch (a SPEC with a stagger), so
 * that every reducer sends a request per map output to the map host: TIPC streams opened and reused, fetch requests,
 * reducers' shuffle CPU, shuffle phase, whether the outputs are identical and right.
 * <p>Arguments: {@code CLUSTER OUT ROUNDS SPEC...} as {@link ShuffleBenchmark}'s; the warm-up runs with reuse on.
 * Exits 1 if an output differs or is wrong; where this node has AF_TIPC, 2 if a byte went over TCP and 3 if a job
 * did not measure reuse: reuse on reused no stream, or reuse off reused one. Without AF_TIPC (the host's mini
 * cluster) both sides fall back to TCP and the run only checks the pipeline.
 */
public final class ShuffleReuseBenchmark {
    static final Side ON = Side.OURS;
    static final Side OFF = Side.OURS_REUSE_OFF;

    static final List<Metric> METRICS = Stream.concat(Stream.of(
            new Metric("TIPC streams opened (STREAMS_OPENED)", "streams", "streams_opened",
                    m -> m.counter(TipcShuffleCounter.STREAMS_OPENED)),
            new Metric("requests sent on a kept-alive stream (STREAMS_REUSED)", "requests", "streams_reused",
                    m -> m.counter(TipcShuffleCounter.STREAMS_REUSED)),
            new Metric("fetch requests over TIPC (opened + reused)", "requests", "tipc_requests",
                    ShuffleReuseBenchmark::requests)),
            SideBySide.METRICS.stream()).toList();

    /** What makes a run's figures meaningless, and the exit status it earns. */
    record Problem(int exit, String what) {
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[1]);
        int rounds = Integer.parseInt(args[2]);
        List<String> specArgs = Arrays.asList(args).subList(3, args.length);
        List<Spec> specs = JobArgs.specs(specArgs);
        Optional<Spec> warmUp = JobArgs.warmUp(specArgs);
        boolean tipc = Tipc.availability().isAvailable();
        System.out.println("TIPC on this node: " + Tipc.availability());
        Path work = Files.createTempDirectory("shuffle-reuse");
        List<Measured> runs = new ArrayList<>();
        try (ShuffleCluster cluster = JobArgs.cluster(args[0], 0)) {
            if (warmUp.isPresent()) {
                Measured m = ShuffleComparison.warmUp(cluster, work, warmUp.get(), ON);
                System.out.printf("warm-up %-28s %s job %6.1f s, output %s (left out of the results)%n",
                        m.spec().name(), ON.label, m.jobMillis() / 1e3, m.correct() ? "correct" : "WRONG");
            }
            String description = cluster.description() + warmUp.map(w -> " A warm-up job (" + w.name()
                    + ", reuse on) ran first on the fresh cluster and is left out.").orElse("");
            ShuffleComparison.run(cluster, work, specs, 1, rounds, ON, OFF, m -> {
                System.out.printf("round %d %-28s %-14s job %6.1f s, shuffle %6d ms (median reducer), streams opened %d, "
                                + "reused %d, TIPC map outputs %d, TCP bytes %d, output %s%n", m.round(), m.spec().name(),
                        m.side().label, m.jobMillis() / 1e3, (long) Stats.median(m.reduces(), ReduceAttempt::shuffleMillis),
                        m.counter(TipcShuffleCounter.STREAMS_OPENED), m.counter(TipcShuffleCounter.STREAMS_REUSED),
                        m.counter(TipcShuffleCounter.TIPC_MAP_OUTPUTS), m.counter(TipcShuffleCounter.TCP_BYTES),
                        m.correct() ? "correct" : "WRONG");
                runs.add(m);
                // Written after every on/off pair: a run cut short (the VM's time limit) keeps what it measured.
                if (SideBySide.partner(runs, m).isPresent()) {
                    try {
                        report(out, description, specs, runs, rounds, tipc);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
        }
        List<Problem> problems = problems(runs, tipc);
        problems.forEach(p -> System.out.println("PROBLEM: " + p.what()));
        System.exit(problems.stream().mapToInt(Problem::exit).min().orElse(0));
    }

    /** Fetch requests that went over TIPC: each is sent on a stream opened for it or on a kept-alive one. */
    static long requests(Measured m) {
        return m.counter(TipcShuffleCounter.STREAMS_OPENED) + m.counter(TipcShuffleCounter.STREAMS_REUSED);
    }

    /**
     * Everything that keeps the runs from measuring reuse on against reuse off over TIPC, worst first; without
     * {@code tipc} (no AF_TIPC here) only wrong outputs.
     */
    static List<Problem> problems(List<Measured> runs, boolean tipc) {
        List<Problem> problems = new ArrayList<>();
        for (Measured m : runs) {
            String run = "round " + m.round() + " " + m.spec().name() + " " + m.side().label + ": ";
            if (!m.correct() || !SideBySide.identical(runs, m)) {
                problems.add(new Problem(1, run + "output wrong or not identical to the other side's (or no other side)"));
            }
            if (!tipc) {
                continue;
            }
            long tcp = m.counter(TipcShuffleCounter.TCP_BYTES);
            if (tcp > 0 || SideBySide.fallbacks(m) > 0) {
                problems.add(new Problem(2, run + tcp + " bytes and " + SideBySide.fallbacks(m)
                        + " fetch requests went over TCP: the comparison is of TIPC streams"));
            }
            long reused = m.counter(TipcShuffleCounter.STREAMS_REUSED);
            if (m.side() == ON && reused == 0) {
                problems.add(new Problem(3, run + "no stream reused: the job did not send a host's requests close "
                        + "enough together (maps not finishing over time?), so it does not measure reuse"));
            }
            if (m.side() == OFF && reused != 0) {
                problems.add(new Problem(3, run + reused + " requests on kept-alive streams with "
                        + TipcShuffleConfig.REUSE_ENABLED + "=false"));
            }
        }
        problems.sort((a, b) -> Integer.compare(a.exit(), b.exit()));
        return problems;
    }

    private static void report(Path out, String cluster, List<Spec> allSpecs, List<Measured> runs, int rounds,
                               boolean tipc) throws IOException {
        List<Spec> specs = allSpecs.stream().filter(s -> runs.stream()
                .anyMatch(m -> m.spec().equals(s) && SideBySide.partner(runs, m).isPresent())).toList();
        StringBuilder csv = new StringBuilder("round,job,maps,reduces,stagger_ms,side,job_ms,shuffle_ms_median,"
                + "shuffle_cpu_ms,reduce_cpu_ms,serving_cpu_ms,streams_opened,streams_reused,tipc_requests,"
                + "tipc_map_outputs,tipc_bytes,tcp_bytes,reduce_shuffle_bytes,cross_machine_tipc_bytes,output_correct,"
                + "output_identical\n");
        for (Measured m : runs) {
            if (SideBySide.partner(runs, m).isEmpty()) {
                continue;
            }
            csv.append(String.join(",", String.valueOf(m.round()), m.spec().job().label(), String.valueOf(m.spec().maps()),
                    String.valueOf(m.spec().reduces()), String.valueOf(m.spec().staggerMillis()), m.side().label,
                    String.valueOf(m.jobMillis()), SideBySide.fmt(Stats.median(m.reduces(), ReduceAttempt::shuffleMillis)),
                    SideBySide.fmt(SideBySide.sum(m, ReduceAttempt::shuffleCpuMillis)),
                    SideBySide.fmt(SideBySide.sum(m, ReduceAttempt::cpuMillis)),
                    String.valueOf(m.servingCpuMillis()), String.valueOf(m.counter(TipcShuffleCounter.STREAMS_OPENED)),
                    String.valueOf(m.counter(TipcShuffleCounter.STREAMS_REUSED)), String.valueOf(requests(m)),
                    String.valueOf(m.counter(TipcShuffleCounter.TIPC_MAP_OUTPUTS)),
                    String.valueOf(m.counter(TipcShuffleCounter.TIPC_BYTES)),
                    String.valueOf(m.counter(TipcShuffleCounter.TCP_BYTES)),
                    String.valueOf(m.counter(TaskCounter.REDUCE_SHUFFLE_BYTES)), String.valueOf(m.crossMachineTipcBytes()),
                    String.valueOf(m.correct()), String.valueOf(SideBySide.identical(runs, m)))).append('\n');
        }

        // Streams opened, requests, and the reducers' shuffle CPU per job, reuse on against off (medians over rounds).
        List<Metric> plotted = List.of(METRICS.get(0), METRICS.get(2), SideBySide.METRICS.get(1));
        List<String> labels = List.of("streams opened", "requests", "reducers' shuffle CPU ms");
        List<String> groups = specs.stream().flatMap(s -> labels.stream().map(l -> s.name() + " " + l)).toList();
        CategoryChart chart = Charts.bars("TIPC stream reuse on vs off: streams opened, requests, reducers' shuffle CPU",
                "job and metric", "count or CPU ms");
        for (Side side : List.of(ON, OFF)) {
            chart.addSeries(side.label, groups, specs.stream().flatMap(s -> plotted.stream().map(
                    p -> (Number) SideBySide.compare(runs, s, p, ON).of(side == ON))).toList());
        }
        Charts.save(out, "plot", chart);

        int planned = 2 * rounds * allSpecs.size();
        String partial = runs.size() == planned ? "" : String.format("**Partial: %d of %d job runs done so far** (this "
                + "summary is rewritten after each reuse on/off pair).%n%n", runs.size(), planned);
        Results.write(out, "shuffle-reuse", csv, partial + summary(cluster, specs, runs, rounds, tipc));
    }

    private static String summary(String cluster, List<Spec> specs, List<Measured> runs, int rounds, boolean tipc) {
        StringBuilder s = new StringBuilder();
        s.append(String.format("%s Every job ran with our `TipcShuffleConsumer` twice, on the same input: with TIPC stream "
                        + "reuse (`%s`, the default) and with `%s=false` (every fetch request on a stream of its own, as stock "
                        + "fetches with keep-alive off), interleaved (%d round%s; the side that goes first alternates from job "
                        + "to job and round to round, so each job's rounds run in ABBA order). Reducers start with the job; "
                        + "the maps meet once every one has started, then finish one after another in index order, the "
                        + "job's stagger apart (`StaggeredMapper`), so each reducer sends a request per map output to the map "
                        + "host. No speculative tasks. Task JVMs of both sides: `%s`.%n%n", cluster, ON.label,
                TipcShuffleConfig.REUSE_ENABLED, rounds, rounds == 1 ? "" : "s", ShuffleComparison.TASK_JVM_OPTS));
        boolean acrossMachines = runs.stream().allMatch(m -> m.crossMachineTipcBytes() >= 0);
        s.append(!tipc ? "Transport: **TCP fallback**: this machine has no AF_TIPC, so both sides fetch over HTTP/TCP and "
                + "reuse nothing; this run only checks the pipeline, it measures no reuse.\n\n"
                : acrossMachines ? "Transport: real TIPC links between the machines; a run with a byte over TCP fails the "
                + "benchmark.\n\n" : "Transport: real TIPC, **node-local**: one machine holds map outputs and reducers.\n\n");
        s.append("Fetch requests over TIPC = `STREAMS_OPENED` + `STREAMS_REUSED`. Shuffle phase = wall time of the "
                + "shuffle consumer's `run()` in each reducer (`TimedShuffleConsumer`), median over reducers; its CPU is "
                + "the reducer JVM's CPU during `run()`, summed over reducers. NodeManager serving CPU = CPU time of the "
                + "handler's threads during the job. The reducers start with the job, so their shuffle phase also holds "
                + "the wait for the maps' JVMs and barrier, alike on both sides: the per-fetch difference is a small part "
                + "of it, and the stream counters say what reuse changed.\n\n");
        for (Spec spec : specs) {
            s.append(String.format("## %s: %d maps x %d reducers, %d records per map, maps finishing %d ms apart%n%n",
                    spec.name(), spec.maps(), spec.reduces(), spec.records(), spec.staggerMillis()));
            s.append(String.format("%d partitions of %.1f KB on average (shuffled bytes per partition, median over runs).%n%n",
                    spec.maps() * spec.reduces(), Stats.median(runs.stream().filter(m -> m.spec().equals(spec)).mapToDouble(
                            m -> m.counter(TaskCounter.REDUCE_SHUFFLE_BYTES) / 1024.0 / (spec.maps() * spec.reduces())))));
            s.append("| metric | reuse on | reuse off | off/on (median of per-pair ratios) | 95% interval (bootstrap) |\n"
                    + "|---|---:|---:|---:|---:|\n");
            for (Metric metric : METRICS) {
                s.append(SideBySide.row(runs, spec, metric, ON));
            }
            List<Measured> ofSpec = runs.stream().filter(m -> m.spec().equals(spec)).toList();
            s.append(String.format("%nSummed over rounds: %d map outputs over TIPC, %d bytes over TCP; %s. Outputs identical between the sides in every round and equal to the "
                            + "expected output computed from the input: %s.%n%n",
                    SideBySide.total(ofSpec, TipcShuffleCounter.TIPC_MAP_OUTPUTS),
                    SideBySide.total(ofSpec, TipcShuffleCounter.TCP_BYTES),
                    acrossMachines ? ofSpec.stream().mapToLong(Measured::crossMachineTipcBytes).sum()
                            + " bytes of TIPC frames crossed machines" : "one machine, no TIPC link crossed",
                    ofSpec.stream().allMatch(m -> m.correct() && SideBySide.identical(runs, m)) ? "yes" : "**NO**"));
        }
        List<Problem> problems = problems(runs, tipc);
        s.append(problems.isEmpty() ? tipc ? "Checks: every output right, no byte over TCP, reuse on reused streams and "
                + "reuse off none.\n" : "Checks: every output right.\n"
                : "**Checks failed:**\n" + problems.stream().map(p -> "- " + p.what() + "\n").reduce("", String::concat));
        return s.toString();
    }

    private ShuffleReuseBenchmark() {
    }
}
