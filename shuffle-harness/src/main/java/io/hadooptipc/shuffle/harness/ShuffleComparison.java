package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.server.TipcShuffleServer;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The stock shuffle against ours on the same jobs and inputs, in one cluster whose
 * NodeManagers run TipcShuffleHandler (which serves HTTP/TCP exactly as stock, so the stock
 * fetchers get the stock server path), interleaved round by round. Each job run is measured
 * from its history and counters, the NodeManagers' shuffle threads and, across machines, the
 * TIPC traffic between them. Used by bin/run and benchmarks/shuffle, and the slow kernel test.
 */
public final class ShuffleComparison {
    /**
     * Task JVM options, the same for both shuffles. Under emulation a task JVM takes about a
     * minute to start: C1 only (C2 costs more than it returns in short tasks), the serial
     * collector (no parallel GC threads to start), no perf-data file, the JDK's class-data
     * archive.
     */
    public static final String TASK_JVM_OPTS = "-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xshare:auto";
    public static final Map<String, String> JOB_SETTINGS = Map.of(
            MRJobConfig.MAP_JAVA_OPTS, TASK_JVM_OPTS,
            MRJobConfig.REDUCE_JAVA_OPTS, TASK_JVM_OPTS,
            MRJobConfig.MR_AM_COMMAND_OPTS, TASK_JVM_OPTS.replace("256m", "400m"),
            // A map's output is at most a few MB: the default 100 MB sort buffer is zeroed and paged in
            // by every map, at emulated speed, for nothing.
            MRJobConfig.IO_SORT_MB, "16",
            // Reducers start once every map is done: their shuffle does not wait for maps.
            MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, "1.0",
            // Slow emulated tasks must not get speculative twins: each is another JVM.
            MRJobConfig.MAP_SPECULATIVE, "false",
            MRJobConfig.REDUCE_SPECULATIVE, "false");

    /** NodeManager threads that serve map outputs: stock Netty (HTTP/TCP), ours (TIPC), and the shared readahead. */
    public static final List<String> SERVING_THREADS = List.of("ShuffleHandler Netty ", TipcShuffleServer.THREAD_NAME,
            "Readahead Thread ");

    /** CPU time of this JVM's live {@link #SERVING_THREADS}: what a NodeManager spent serving map outputs. */
    public static long servingCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> SERVING_THREADS.stream().anyMatch(t.getName()::startsWith))
                .mapToLong(t -> Math.max(0, threads.getThreadCpuTime(t.getId())))
                .sum();
    }

    /** The reduce-side shuffles compared, two at a time: a consumer and the job settings it runs with. */
    public enum Side {
        STOCK("stock", Shuffle.class, Map.of()),
        OURS("ours", TipcShuffleConsumer.class, Map.of()),
        /** Ours with every TIPC fetch on a stream of its own, as stock fetches with keep-alive off. */
        OURS_REUSE_OFF("ours-reuse-off", TipcShuffleConsumer.class, Map.of(TipcShuffleConfig.REUSE_ENABLED, "false"));

        public final String label;
        final Class<?> consumer;
        public final Map<String, String> settings;

        Side(String label, Class<?> consumer, Map<String, String> settings) {
            this.label = label;
            this.consumer = consumer;
            this.settings = settings;
        }
    }

    /**
     * A job and its size: {@code maps} input files of {@code records} lines, {@code reduces} reducers. With
     * {@code staggerMillis} 0 reducers start after the last map; otherwise they start with the job and the maps
     * finish one after another, that far apart ({@link StaggeredMapper}), so each reducer sends a request per map
     * output to the map host.
     */
    public static final class Spec {
        private final ShuffleJob job;
        private final int maps;
        private final int reduces;
        private final int records;
        private final int staggerMillis;

        public Spec(ShuffleJob job, int maps, int reduces, int records, int staggerMillis) {
            this.job = job;
            this.maps = maps;
            this.reduces = reduces;
            this.records = records;
            this.staggerMillis = staggerMillis;
        }

        public Spec(ShuffleJob job, int maps, int reduces, int records) {
            this(job, maps, reduces, records, 0);
        }

        public String name() {
            return job.label() + "-" + maps + "x" + reduces + (staggerMillis == 0 ? "" : "-staggered");
        }

        public ShuffleJob job() {
            return job;
        }

        public int maps() {
            return maps;
        }

        public int reduces() {
            return reduces;
        }

        public int records() {
            return records;
        }

        public int staggerMillis() {
            return staggerMillis;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Spec)) {
                return false;
            }
            Spec that = (Spec) o;
            return Objects.equals(job, that.job) && maps == that.maps && reduces == that.reduces
                    && records == that.records && staggerMillis == that.staggerMillis;
        }

        @Override
        public int hashCode() {
            return Objects.hash(job, maps, reduces, records, staggerMillis);
        }

        @Override
        public String toString() {
            return "Spec[job=" + job + ", maps=" + maps + ", reduces=" + reduces + ", records=" + records
                    + ", staggerMillis=" + staggerMillis + "]";
        }
    }

    /** One reduce attempt: the shuffle's own wall and CPU time, launch to shuffle end (job history), the task's CPU. */
    public static final class ReduceAttempt {
        private final long shuffleMillis;
        private final long shuffleCpuMillis;
        private final long launchToShuffleEndMillis;
        private final long cpuMillis;

        public ReduceAttempt(long shuffleMillis, long shuffleCpuMillis, long launchToShuffleEndMillis, long cpuMillis) {
            this.shuffleMillis = shuffleMillis;
            this.shuffleCpuMillis = shuffleCpuMillis;
            this.launchToShuffleEndMillis = launchToShuffleEndMillis;
            this.cpuMillis = cpuMillis;
        }

        public long shuffleMillis() {
            return shuffleMillis;
        }

        public long shuffleCpuMillis() {
            return shuffleCpuMillis;
        }

        public long launchToShuffleEndMillis() {
            return launchToShuffleEndMillis;
        }

        public long cpuMillis() {
            return cpuMillis;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof ReduceAttempt)) {
                return false;
            }
            ReduceAttempt that = (ReduceAttempt) o;
            return shuffleMillis == that.shuffleMillis && shuffleCpuMillis == that.shuffleCpuMillis
                    && launchToShuffleEndMillis == that.launchToShuffleEndMillis && cpuMillis == that.cpuMillis;
        }

        @Override
        public int hashCode() {
            return Objects.hash(shuffleMillis, shuffleCpuMillis, launchToShuffleEndMillis, cpuMillis);
        }

        @Override
        public String toString() {
            return "ReduceAttempt[shuffleMillis=" + shuffleMillis + ", shuffleCpuMillis=" + shuffleCpuMillis
                    + ", launchToShuffleEndMillis=" + launchToShuffleEndMillis + ", cpuMillis=" + cpuMillis + "]";
        }
    }

    /** One job run with one shuffle: its output, whether that is the expected output, and what it cost. */
    public static final class Measured {
        private final Spec spec;
        private final Side side;
        private final int round;
        private final ShuffleCluster.Result result;
        private final boolean correct;
        private final long jobMillis;
        private final List<ReduceAttempt> reduces;
        private final long servingCpuMillis;
        private final long crossMachineTipcBytes;
        private final long[] machineInstructions;

        /** {@code machineInstructions}: what each machine executed during the job, machine 1 first; empty if not counted. */
        public Measured(Spec spec, Side side, int round, ShuffleCluster.Result result, boolean correct, long jobMillis,
                List<ReduceAttempt> reduces, long servingCpuMillis, long crossMachineTipcBytes, long[] machineInstructions) {
            this.spec = spec;
            this.side = side;
            this.round = round;
            this.result = result;
            this.correct = correct;
            this.jobMillis = jobMillis;
            this.reduces = reduces;
            this.servingCpuMillis = servingCpuMillis;
            this.crossMachineTipcBytes = crossMachineTipcBytes;
            this.machineInstructions = machineInstructions.clone();
        }

        public long counter(Enum<?> counter) {
            return result.counters().findCounter(counter).getValue();
        }

        public Spec spec() {
            return spec;
        }

        public Side side() {
            return side;
        }

        public int round() {
            return round;
        }

        public ShuffleCluster.Result result() {
            return result;
        }

        public boolean correct() {
            return correct;
        }

        public long jobMillis() {
            return jobMillis;
        }

        public List<ReduceAttempt> reduces() {
            return reduces;
        }

        public long servingCpuMillis() {
            return servingCpuMillis;
        }

        public long crossMachineTipcBytes() {
            return crossMachineTipcBytes;
        }

        /** Instructions each machine executed during the job, machine 1 first; empty where they are not counted. */
        public long[] machineInstructions() {
            return machineInstructions.clone();
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Measured)) {
                return false;
            }
            Measured that = (Measured) o;
            return Objects.equals(spec, that.spec) && Objects.equals(side, that.side) && round == that.round
                    && Objects.equals(result, that.result) && correct == that.correct && jobMillis == that.jobMillis
                    && Objects.equals(reduces, that.reduces) && servingCpuMillis == that.servingCpuMillis
                    && crossMachineTipcBytes == that.crossMachineTipcBytes
                    && Arrays.equals(machineInstructions, that.machineInstructions);
        }

        @Override
        public int hashCode() {
            return 31 * Objects.hash(spec, side, round, result, correct, jobMillis, reduces, servingCpuMillis,
                    crossMachineTipcBytes) + Arrays.hashCode(machineInstructions);
        }

        @Override
        public String toString() {
            return "Measured[spec=" + spec + ", side=" + side + ", round=" + round + ", result=" + result
                    + ", correct=" + correct + ", jobMillis=" + jobMillis + ", reduces=" + reduces
                    + ", servingCpuMillis=" + servingCpuMillis + ", crossMachineTipcBytes=" + crossMachineTipcBytes
                    + ", machineInstructions=" + Arrays.toString(machineInstructions) + "]";
        }
    }

    /** {@link #run(ShuffleCluster, Path, List, int, int, Side, Side, Consumer)} of the stock shuffle and ours, rounds 1 to {@code rounds}. */
    public static List<Measured> run(ShuffleCluster cluster, Path work, List<Spec> specs, int rounds,
                                     Consumer<Measured> done) throws Exception {
        return run(cluster, work, specs, 1, rounds, Side.STOCK, Side.OURS, done);
    }

    /**
     * Runs every spec with sides {@code a} and {@code b} on {@code cluster} in rounds {@code firstRound} to
     * {@code lastRound}, reporting each run to {@code done} as it ends. Inputs are written under {@code work}. A series
     * measured over several sessions numbers its rounds on, so that the sides keep taking turns to go first.
     */
    public static List<Measured> run(ShuffleCluster cluster, Path work, List<Spec> specs, int firstRound, int lastRound,
                                     Side a, Side b, Consumer<Measured> done) throws Exception {
        List<String> expected = new ArrayList<>();
        List<org.apache.hadoop.fs.Path> inputs = new ArrayList<>();
        for (Spec spec : specs) {
            Path local = work.resolve(spec.name()).resolve("in");
            expected.add(spec.job().writeInput(local, spec.maps(), spec.records()));
            inputs.add(cluster.stageInput(local));
        }
        List<Measured> runs = new ArrayList<>();
        for (int round = firstRound; round <= lastRound; round++) {
            for (int i = 0; i < specs.size(); i++) {
                // Who goes first alternates from job to job and round to round, so neither side
                // always meets the colder cluster.
                List<Side> order = (round + i) % 2 == 1 ? List.of(a, b) : List.of(b, a);
                for (Side side : order) {
                    Measured m = measure(cluster, inputs.get(i), specs.get(i), side, round, expected.get(i));
                    runs.add(m);
                    done.accept(m);
                }
            }
        }
        return runs;
    }

    /**
     * Runs {@code spec} once with {@code side}, as round 0, for a cluster whose daemons have served no job yet:
     * the first job pays for their cold start, which no side of the comparison should.
     */
    public static Measured warmUp(ShuffleCluster cluster, Path work, Spec spec, Side side) throws Exception {
        Path local = work.resolve("warm-up-" + spec.name()).resolve("in");
        String expected = spec.job().writeInput(local, spec.maps(), spec.records());
        return measure(cluster, cluster.stageInput(local), spec, side, 0, expected);
    }

    /** Whether two outputs have the same part files, byte for byte. */
    public static boolean identical(ShuffleCluster.Result a, ShuffleCluster.Result b) {
        return a.parts().keySet().equals(b.parts().keySet()) && a.parts().entrySet().stream()
                .allMatch(e -> Arrays.equals(e.getValue(), b.parts().get(e.getKey())));
    }

    private static Measured measure(ShuffleCluster cluster, org.apache.hadoop.fs.Path input, Spec spec, Side side,
                                    int round, String expected) throws Exception {
        String run = spec.name() + "-" + side.label + "-" + round;
        Map<String, String> settings = new HashMap<>(JOB_SETTINGS);
        settings.putAll(side.settings);
        settings.put(TimedShuffleConsumer.DELEGATE, side.consumer.getName());
        if (spec.staggerMillis() > 0) {
            settings.put(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, "0");
            settings.put(MRJobConfig.MAP_CLASS_ATTR, StaggeredMapper.class.getName());
            settings.put(StaggeredMapper.ARRIVALS, cluster.outputPath(run + "-arrivals").toString());
            settings.put(StaggeredMapper.STAGGER_MS, String.valueOf(spec.staggerMillis()));
            // Every map's JVM starts at once on the map machine: on a loaded emulated host, longer than the default
            // 10 minutes before its first progress report, and a map killed for that restarts the whole wait.
            settings.put(MRJobConfig.TASK_TIMEOUT, String.valueOf(TimeUnit.MINUTES.toMillis(30)));
        }
        long servingCpu = cluster.servingCpuNanos();
        long tipcBytes = cluster.crossMachineTipcBytes();
        long[] instructions = cluster.guestInstructions();
        ShuffleCluster.Result result = ShuffleJobRunner.run(cluster.config(), spec.job(), input,
                cluster.outputPath(run), TimedShuffleConsumer.class, spec.reduces(), settings);
        servingCpu = cluster.servingCpuNanos() - servingCpu;
        long shuffled = result.counters().findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
        if (shuffled > 0 && servingCpu <= 0) {
            // Stock serves on its Netty workers, ours on the TIPC server's: one of them did this job's work.
            throw new IllegalStateException(spec.name() + " (" + side.label + ") shuffled " + shuffled
                    + " bytes but no NodeManager serving thread spent CPU: the probe no longer finds them by name "
                    + SERVING_THREADS);
        }
        tipcBytes = tipcBytes < 0 ? -1 : cluster.crossMachineTipcBytes() - tipcBytes;
        long[] instructionsAfter = cluster.guestInstructions();
        for (int machine = 0; machine < instructions.length; machine++) {
            instructions[machine] = instructionsAfter[machine] - instructions[machine];
        }
        JobHistoryParser.JobInfo history = ShuffleJobRunner.history(cluster.config(), result.id());
        cluster.checkPlacement(run, succeededAttemptHosts(history, TaskType.MAP), succeededAttemptHosts(history, TaskType.REDUCE));
        List<ReduceAttempt> reduces = succeededAttempts(history, TaskType.REDUCE)
                .map(a -> new ReduceAttempt(value(a.getCounters(), TimedShuffleConsumer.Counter.SHUFFLE_MILLIS),
                        value(a.getCounters(), TimedShuffleConsumer.Counter.SHUFFLE_CPU_MILLIS),
                        a.getShuffleFinishTime() - a.getStartTime(), value(a.getCounters(), TaskCounter.CPU_MILLISECONDS)))
                .collect(Collectors.toList());
        return new Measured(spec, side, round, result, result.sortedLines().equals(expected),
                history.getFinishTime() - history.getLaunchTime(), reduces, servingCpu / 1_000_000, tipcBytes,
                instructions);
    }

    private static Stream<JobHistoryParser.TaskAttemptInfo> succeededAttempts(JobHistoryParser.JobInfo history, TaskType type) {
        return history.getAllTasks().values().stream()
                .filter(t -> t.getTaskType() == type)
                .flatMap(t -> t.getAllTaskAttempts().values().stream())
                .filter(a -> "SUCCEEDED".equals(a.getTaskStatus()));
    }

    private static Set<String> succeededAttemptHosts(JobHistoryParser.JobInfo history, TaskType type) {
        return succeededAttempts(history, type).map(JobHistoryParser.TaskAttemptInfo::getHostname)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static long value(Counters counters, Enum<?> counter) {
        return counters.findCounter(counter).getValue();
    }

    private ShuffleComparison() {
    }
}
