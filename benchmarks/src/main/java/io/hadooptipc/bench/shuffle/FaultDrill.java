package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.GatedMapper;
import io.hadooptipc.shuffle.harness.ShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleComparison;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import io.hadooptipc.shuffle.harness.ShuffleJobRunner;
import io.hadooptipc.shuffle.harness.TestbedCluster;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Faults at job level on the testbed cluster (testbed/cluster/hadoop-cluster, from its machine 1; maps run on
 * machine 2, reducers here): a job with our shuffle meets a fault on machine 2 while its reducers are fetching,
 * and must succeed with output byte-identical to the same job with the stock shuffle, its fallbacks counted by
 * reason. Reducers start with the job. For a mid-shuffle fault, maps 0 and 1 run while maps 2 and 3 wait at a gate
 * ({@link GatedMapper}): the fault strikes once the reducers have fetched two map outputs over TIPC, and only then
 * does the drill open the gate, so outputs are still due when it strikes, whatever the timing of progress reports.
 * <p>Arguments: {@code OUT}. Writes {@code OUT/summary.md}; exits 1 if any fault was not survived as it must be.
 */
public final class FaultDrill {
    private static final int MAP_MACHINE = 2;
    private static final ShuffleComparison.Spec SPEC =
            new ShuffleComparison.Spec(ShuffleJob.SHUFFLE_HEAVY, 4, 2, 400);
    /** Maps that run before a mid-shuffle fault; the others wait for it at the gate. */
    private static final int MAPS_BEFORE_FAULT = 2;
    /** Map outputs fetched over TIPC before a mid-shuffle fault strikes (of the first maps' 2 x reducers). */
    private static final int OUTPUTS_BEFORE_FAULT = 2;
    private static final Duration ACTION_TIMEOUT = Duration.ofMinutes(5);
    /** How long the reducers may take to fetch {@link #OUTPUTS_BEFORE_FAULT} outputs of the open maps. */
    private static final Duration FETCH_TIMEOUT = Duration.ofMinutes(15);

    /** A fault on the map machine: what is done before the job or mid-shuffle, and what repairs it afterwards. */
    enum Fault {
        BEARER_DOWN("TIPC bearer disabled on m2 mid-shuffle", null, "bearer-down", "bearer-up"),
        NODEMANAGER_RESTART("m2's NodeManager killed (SIGKILL) mid-shuffle and restarted, NodeManager recovery on",
                null, "nodemanager-restart", null),
        NAMES_WITHDRAWN("m2's TIPC names withdrawn: its NodeManager restarted with mapreduce.shuffle.tipc.enabled=false",
                "nodemanager-restart-tipc-off", null, "nodemanager-restart");

        final String description;
        final String before;
        final String midShuffle;
        final String repair;

        Fault(String description, String before, String midShuffle, String repair) {
            this.description = description;
            this.before = before;
            this.midShuffle = midShuffle;
            this.repair = repair;
        }
    }

    /** How one fault went: when it struck, the job's outcome and counters, and what was wrong, if anything. */
    record Outcome(Fault fault, String struck, long jobMillis, boolean identical, Map<TipcShuffleCounter, Long> counters,
                   List<String> problems) {
    }

    public static void main(String[] args) throws Exception {
        java.nio.file.Path out = java.nio.file.Path.of(args[0]);
        java.nio.file.Path work = Files.createTempDirectory("shuffle-faults");
        String expected = SPEC.job().writeInput(work.resolve("in"), SPEC.maps(), SPEC.records());
        List<Outcome> outcomes = new java.util.ArrayList<>();
        try (TestbedCluster cluster = TestbedCluster.connect(0)) {
            Path input = cluster.stageInput(work.resolve("in"));
            progress("stock reference job");
            ShuffleCluster.Result reference = ShuffleJobRunner.collect(
                    await(submit(cluster, input, "stock", Shuffle.class, Map.of())),
                    cluster.outputPath(SPEC.name() + "-stock"));
            if (!reference.sortedLines().equals(expected)) {
                throw new AssertionError("the stock job's output is wrong: nothing to compare with");
            }
            for (Fault fault : Fault.values()) {
                outcomes.add(drill(cluster, input, fault, reference, expected));
                report(out, outcomes);
            }
        }
        System.out.print(verdict(outcomes));
        System.exit(outcomes.stream().allMatch(o -> o.problems().isEmpty()) ? 0 : 1);
    }

    private static Outcome drill(TestbedCluster cluster, Path input, Fault fault, ShuffleCluster.Result reference,
                                 String expected) throws Exception {
        progress(fault.description);
        if (fault.before != null) {
            cluster.act(MAP_MACHINE, fault.before, ACTION_TIMEOUT);
        }
        Path output = cluster.outputPath(SPEC.name() + "-" + fault.name().toLowerCase());
        Map<String, String> settings = new HashMap<>();
        Path gate = cluster.outputPath("gate-" + fault.name().toLowerCase());
        if (fault.midShuffle != null) {
            settings.put(MRJobConfig.MAP_CLASS_ATTR, GatedMapper.class.getName());
            settings.put(GatedMapper.GATE, gate.toString());
            settings.put(GatedMapper.OPEN_MAPS, String.valueOf(MAPS_BEFORE_FAULT));
        }
        Job job = submit(cluster, input, fault.name().toLowerCase(), TipcShuffleConsumer.class, settings);
        String struck = "before the job";
        if (fault.midShuffle != null) {
            struck = awaitShuffle(job);
            progress("fault strikes (" + struck + "): " + fault.midShuffle);
            cluster.act(MAP_MACHINE, fault.midShuffle, ACTION_TIMEOUT);
            progress("maps " + MAPS_BEFORE_FAULT + ".." + (SPEC.maps() - 1) + " may run now");
            gate.getFileSystem(cluster.config()).create(gate).close();
        }
        await(job);
        if (fault.repair != null) {
            progress("repair: " + fault.repair);
            cluster.act(MAP_MACHINE, fault.repair, ACTION_TIMEOUT);
        }
        List<String> problems = new java.util.ArrayList<>();
        Map<TipcShuffleCounter, Long> counters = new HashMap<>();
        boolean identical = false;
        long jobMillis = job.getFinishTime() - job.getStartTime();
        if (!job.isSuccessful()) {
            problems.add("job failed: " + job.getStatus().getFailureInfo());
        } else {
            ShuffleCluster.Result result = ShuffleJobRunner.collect(job, output);
            identical = ShuffleComparison.identical(reference, result);
            if (!identical || !result.sortedLines().equals(expected)) {
                problems.add("output differs from the stock job's");
            }
            for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
                counters.put(c, result.counters().findCounter(c).getValue());
            }
            problems.addAll(expectedCounters(fault, counters, SPEC.maps() * SPEC.reduces()));
        }
        return new Outcome(fault, struck, jobMillis, identical, counters, problems);
    }

    /** What the counters must show for the fault to have been met and handled, not missed. */
    static List<String> expectedCounters(Fault fault, Map<TipcShuffleCounter, Long> c, int mapOutputs) {
        List<String> problems = new java.util.ArrayList<>();
        long outputs = c.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS) + c.get(TipcShuffleCounter.TCP_MAP_OUTPUTS);
        if (outputs != mapOutputs) {
            problems.add("counted " + outputs + " map outputs, not " + mapOutputs);
        }
        long fallbacks = fallbacks(c);
        switch (fault) {
            case NAMES_WITHDRAWN -> {
                if (c.get(TipcShuffleCounter.TIPC_BYTES) != 0 || c.get(TipcShuffleCounter.FALLBACK_NOT_PUBLISHED) == 0) {
                    problems.add("with no TIPC name published, every fetch must go over TCP as FALLBACK_NOT_PUBLISHED");
                }
            }
            case BEARER_DOWN, NODEMANAGER_RESTART -> {
                if (c.get(TipcShuffleCounter.ROUTES_TO_TCP) == 0) {
                    problems.add("no host switched to HTTP/TCP: the reducers never saw the fault");
                }
                if (fault == Fault.BEARER_DOWN && (fallbacks == 0 || c.get(TipcShuffleCounter.TCP_MAP_OUTPUTS) == 0)) {
                    problems.add("no map output went over HTTP/TCP while the bearer was down");
                }
                if (c.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS) == 0) {
                    problems.add("no map output went over TIPC before the fault");
                }
                if (fault == Fault.NODEMANAGER_RESTART && c.get(TipcShuffleCounter.ROUTES_BACK_TO_TIPC) == 0) {
                    problems.add("the restarted NodeManager's host never went back to TIPC");
                }
            }
        }
        return problems;
    }

    private static Job submit(TestbedCluster cluster, Path input, String name, Class<?> consumer,
                             Map<String, String> jobSettings) throws Exception {
        Map<String, String> settings = new HashMap<>(ShuffleComparison.JOB_SETTINGS);
        settings.put(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, "0");
        settings.putAll(jobSettings);
        return ShuffleJobRunner.submit(cluster.config(), SPEC.job(), input, cluster.outputPath(SPEC.name() + "-" + name),
                consumer, SPEC.reduces(), settings);
    }

    /**
     * Waits until the reducers have fetched {@link #OUTPUTS_BEFORE_FAULT} map outputs over TIPC (so they follow the map
     * host's TIPC name), while the gated maps wait; says how far the job was.
     */
    private static String awaitShuffle(Job job) throws Exception {
        long deadline = System.nanoTime() + FETCH_TIMEOUT.toNanos();
        while (true) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("reducers fetched fewer than " + OUTPUTS_BEFORE_FAULT
                        + " map outputs over TIPC within " + FETCH_TIMEOUT.toMinutes() + " minutes");
            }
            long mapsDone = Arrays.stream(job.getTaskReports(TaskType.MAP))
                    .filter(r -> r.getCurrentStatus() == TIPStatus.COMPLETE).count();
            long fetched = job.getCounters().findCounter(TipcShuffleCounter.TIPC_MAP_OUTPUTS).getValue();
            if (fetched >= OUTPUTS_BEFORE_FAULT || job.isComplete()) {
                return mapsDone + " of " + SPEC.maps() + " maps done, " + fetched + " map outputs fetched over TIPC";
            }
            Thread.sleep(1000);
        }
    }

    private static Job await(Job job) throws Exception {
        job.waitForCompletion(false);
        return job;
    }

    private static void progress(String what) {
        System.out.printf("faults: %s%n", what);
    }

    /** Writes results.csv (one row per fault), plot.png (map outputs by transport) and summary.md. */
    private static void report(java.nio.file.Path out, List<Outcome> outcomes) throws IOException {
        StringBuilder csv = new StringBuilder("fault,struck_after_tipc_outputs,job_ms,identical,tipc_map_outputs,"
                + "tcp_map_outputs,fallbacks,routes_to_tcp,routes_back_to_tipc,survived\n");
        for (Outcome o : outcomes) {
            csv.append(String.join(",", o.fault().name().toLowerCase(), o.fault().midShuffle == null ? "before-job"
                            : String.valueOf(OUTPUTS_BEFORE_FAULT), String.valueOf(o.jobMillis()),
                    String.valueOf(o.identical()), String.valueOf(count(o, TipcShuffleCounter.TIPC_MAP_OUTPUTS)),
                    String.valueOf(count(o, TipcShuffleCounter.TCP_MAP_OUTPUTS)), String.valueOf(fallbacks(o.counters())),
                    String.valueOf(count(o, TipcShuffleCounter.ROUTES_TO_TCP)),
                    String.valueOf(count(o, TipcShuffleCounter.ROUTES_BACK_TO_TIPC)),
                    String.valueOf(o.problems().isEmpty()))).append('\n');
        }
        CategoryChart chart = Charts.bars("Map outputs fetched per transport, by fault",
                "fault", "map outputs");
        List<String> faults = outcomes.stream().map(o -> o.fault().name().toLowerCase()).toList();
        chart.addSeries("TIPC", faults, outcomes.stream().map(o -> (Number) count(o, TipcShuffleCounter.TIPC_MAP_OUTPUTS)).toList());
        chart.addSeries("HTTP/TCP", faults, outcomes.stream().map(o -> (Number) count(o, TipcShuffleCounter.TCP_MAP_OUTPUTS)).toList());
        Charts.save(out, "plot", chart);
        Results.write(out, "Faults at job level on the testbed cluster", csv, summary(outcomes));
    }

    private static long count(Outcome o, TipcShuffleCounter counter) {
        return o.counters().getOrDefault(counter, 0L);
    }

    /** Fetch requests that went over HTTP/TCP, all reasons together. */
    private static long fallbacks(Map<TipcShuffleCounter, Long> counters) {
        return counters.entrySet().stream().filter(e -> e.getKey().isFallback()).mapToLong(Map.Entry::getValue).sum();
    }

    static String summary(List<Outcome> outcomes) {
        StringBuilder s = new StringBuilder("Job: ").append(SPEC.name()).append(" (").append(SPEC.maps()).append(" maps on m2, of which ")
                .append(SPEC.maps() - MAPS_BEFORE_FAULT).append(" wait at a gate until a mid-shuffle fault has struck; ")
                .append(SPEC.reduces()).append(" reducers on m1, started with the job), our shuffle, compared byte for ")
                .append("byte with the same job run once with the stock shuffle. Command: `bin/run --faults`.\n\n");
        s.append("| fault | struck | job | output identical | TIPC / TCP map outputs | fallbacks by reason | hosts to TCP / back to TIPC | verdict |\n");
        s.append("|---|---|---|---|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            String reasons = o.counters().entrySet().stream()
                    .filter(e -> e.getKey().isFallback() && e.getValue() > 0)
                    .map(e -> e.getKey().name() + " " + e.getValue()).sorted().collect(Collectors.joining(", "));
            s.append(String.format("| %s | %s | %.0f s | %s | %d / %d | %s | %d / %d | %s |%n", o.fault().description,
                    o.struck(), o.jobMillis() / 1e3, o.identical() ? "yes" : "no",
                    count(o, TipcShuffleCounter.TIPC_MAP_OUTPUTS), count(o, TipcShuffleCounter.TCP_MAP_OUTPUTS),
                    reasons.isEmpty() ? "none" : reasons,
                    count(o, TipcShuffleCounter.ROUTES_TO_TCP), count(o, TipcShuffleCounter.ROUTES_BACK_TO_TIPC),
                    o.problems().isEmpty() ? "survived" : "FAILED: " + String.join("; ", o.problems())));
        }
        return s.toString();
    }

    static String verdict(List<Outcome> outcomes) {
        StringBuilder s = new StringBuilder("\n== faults ==\n");
        for (Outcome o : outcomes) {
            s.append(o.fault().name().toLowerCase()).append(": ")
                    .append(o.problems().isEmpty() ? "survived, output identical to stock" : "FAILED: " + o.problems())
                    .append('\n');
        }
        return s.toString();
    }

    private FaultDrill() {
    }
}
