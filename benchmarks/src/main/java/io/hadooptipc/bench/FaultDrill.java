package io.hadooptipc.bench;

import io.hadooptipc.shuffle.ShuffleCluster;
import io.hadooptipc.shuffle.ShuffleComparison;
import io.hadooptipc.shuffle.ShuffleJob;
import io.hadooptipc.shuffle.ShuffleJobRunner;
import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Faults at job level on the testbed cluster (testbed-cluster/hadoop-cluster, from its machine 1; maps run on
 * machine 2, reducers here): a job with our shuffle meets a fault on machine 2 while its reducers are fetching,
 * and must succeed with output byte-identical to the same job with the stock shuffle, its fallbacks counted by
 * reason. Maps run two at a time and reducers start with the job; the fault strikes once the reducers have
 * fetched two map outputs over TIPC, with the others still to come.
 * <p>Arguments: {@code OUT}. Writes {@code OUT/summary.md}; exits 1 if any fault was not survived as it must be.
 */
public final class FaultDrill {
    private static final int MAP_MACHINE = 2;
    private static final ShuffleComparison.Spec SPEC =
            new ShuffleComparison.Spec(ShuffleJob.SHUFFLE_HEAVY, 4, 2, 400);
    /** Map outputs fetched over TIPC before a mid-shuffle fault strikes. */
    private static final int OUTPUTS_BEFORE_FAULT = 2;
    private static final Duration ACTION_TIMEOUT = Duration.ofMinutes(5);

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
        try (TestbedCluster cluster = TestbedCluster.connect(Integer.parseInt(System.getenv("TIPC_TESTBED_MACHINES")),
                java.nio.file.Path.of(System.getenv("HADOOP_CLUSTER_RUN")), System.getenv("HADOOP_CLUSTER_NIC"))) {
            Path input = cluster.stageInput(work.resolve("in"));
            progress("stock reference job");
            ShuffleCluster.Result reference = ShuffleJobRunner.collect(
                    await(submit(cluster, input, "stock", Shuffle.class)), cluster.outputPath(SPEC.name() + "-stock"));
            if (!reference.sortedLines().equals(expected)) {
                throw new AssertionError("the stock job's output is wrong: nothing to compare with");
            }
            for (Fault fault : Fault.values()) {
                outcomes.add(drill(cluster, input, fault, reference, expected));
                Files.createDirectories(out);
                Files.writeString(out.resolve("summary.md"), summary(outcomes));
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
        Job job = submit(cluster, input, fault.name().toLowerCase(), TipcShuffleConsumer.class);
        String struck = "before the job";
        if (fault.midShuffle != null) {
            struck = awaitShuffle(job);
            progress("fault strikes (" + struck + "): " + fault.midShuffle);
            cluster.act(MAP_MACHINE, fault.midShuffle, ACTION_TIMEOUT);
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
        long fallbacks = Arrays.stream(TipcShuffleCounter.values()).filter(k -> k.name().startsWith("FALLBACK_"))
                .mapToLong(c::get).sum();
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

    private static Job submit(TestbedCluster cluster, Path input, String name, Class<?> consumer) throws Exception {
        Map<String, String> settings = new HashMap<>(ShuffleComparison.JOB_SETTINGS);
        settings.put(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, "0");
        // Two maps at a time, by their size: m2's NodeManager offers 3072 MB. Not by
        // mapreduce.job.running.map.limit, whose limited ask loses the maps' node label (Hadoop's
        // RMContainerRequestor builds it without one), so maps landed on m1.
        settings.put(MRJobConfig.MAP_MEMORY_MB, "1400");
        return ShuffleJobRunner.submit(cluster.config(), SPEC.job(), input, cluster.outputPath(SPEC.name() + "-" + name),
                consumer, SPEC.reduces(), settings);
    }

    /**
     * Waits until the reducers have fetched {@link #OUTPUTS_BEFORE_FAULT} map outputs over TIPC (so they follow the map
     * host's TIPC name) while later maps are still to come; says how far the job was.
     */
    private static String awaitShuffle(Job job) throws Exception {
        while (true) {
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

    static String summary(List<Outcome> outcomes) {
        StringBuilder s = new StringBuilder("# Faults at job level on the testbed cluster\n\n");
        s.append(Machine.describe()).append('\n');
        s.append("Job: ").append(SPEC.name()).append(" (").append(SPEC.maps()).append(" maps on m2, two at a time; ")
                .append(SPEC.reduces()).append(" reducers on m1, started with the job), our shuffle, compared byte for ")
                .append("byte with the same job run once with the stock shuffle. Command: `bin/run --faults`.\n\n");
        s.append("| fault | struck | job | output identical | TIPC / TCP map outputs | fallbacks by reason | hosts to TCP / back to TIPC | verdict |\n");
        s.append("|---|---|---|---|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            String fallbacks = o.counters().entrySet().stream()
                    .filter(e -> e.getKey().name().startsWith("FALLBACK_") && e.getValue() > 0)
                    .map(e -> e.getKey().name() + " " + e.getValue()).sorted().collect(Collectors.joining(", "));
            s.append(String.format("| %s | %s | %.0f s | %s | %d / %d | %s | %d / %d | %s |%n", o.fault().description,
                    o.struck(), o.jobMillis() / 1e3, o.identical() ? "yes" : "no",
                    o.counters().getOrDefault(TipcShuffleCounter.TIPC_MAP_OUTPUTS, 0L),
                    o.counters().getOrDefault(TipcShuffleCounter.TCP_MAP_OUTPUTS, 0L),
                    fallbacks.isEmpty() ? "none" : fallbacks,
                    o.counters().getOrDefault(TipcShuffleCounter.ROUTES_TO_TCP, 0L),
                    o.counters().getOrDefault(TipcShuffleCounter.ROUTES_BACK_TO_TIPC, 0L),
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
