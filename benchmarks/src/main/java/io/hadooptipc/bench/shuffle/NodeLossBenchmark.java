package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Machine;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.GatedMapper;
import io.hadooptipc.shuffle.harness.PinnedInputFormat;
import io.hadooptipc.shuffle.harness.ShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleComparison;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import io.hadooptipc.shuffle.harness.ShuffleJobRunner;
import io.hadooptipc.shuffle.harness.TestbedCluster;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A map host lost mid-shuffle, on the testbed cluster of three machines (testbed/cluster/hadoop-cluster, from m1,
 * where the ApplicationMaster and the reducers run): the job's two maps run on m2 (their splits pinned there), held at a
 * gate until every reducer's shuffle has begun, then map 1 finishing {@link #STAGGER} after map 0 so that reducers
 * fetch map 0's output first. The moment map 1 has done its work, before it tells the ApplicationMaster so, m2 meets a
 * fault (hadoop-cluster's strike-N-APP-ACTION), so no reducer can have fetched map 1's output; the job must still
 * succeed with the same output, which m3, idle, can re-run. Trials {@code ARM:FAULT}: arms stock-default, stock-tuned
 * and ours (node loss on); faults loss (m2's shuffle cut, TIPC and its shuffle port, then every frame of m2 dropped,
 * TIPC and IP alike, once map 1 has told the ApplicationMaster it is done, until the job ends), flap (m2's TIPC bearer down 5 s),
 * nodemanager-restart (m2's NodeManager killed and restarted) and short-blackout (every frame of m2 dropped for 2 s,
 * less than the hold-down). Each round runs every trial once, starting one further along the list each round.
 * <p>Arguments: {@code OUT K-N REDUCERS TRIAL...}: rounds K to N (a series measures its rounds over sessions, see
 * {@link NodeLossSeries}). Writes {@code OUT/results.csv}, {@code plot.png}, {@code summary.md} after every trial;
 * exits 1 if a job failed or its output differs, or if a loss of ours re-ran no map or a fault other than loss re-ran
 * one with ours.
 */
public final class NodeLossBenchmark {
    private static final ShuffleJob JOB = ShuffleJob.SHUFFLE_HEAVY;
    private static final int MAPS = 2;
    private static final int RECORDS = 120;
    private static final int VICTIM = 2;
    private static final String PLACEMENT = "m2,m2";
    private static final Duration REDUCERS_SETTLED = Duration.ofSeconds(20);
    /** ReduceTask's line as it hands the shuffle to the consumer plugin, stock's or ours. */
    private static final String SHUFFLE_BEGINS = "Using ShuffleConsumerPlugin:";
    private static final Duration STAGGER = Duration.ofSeconds(20);
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(40);
    private static final Duration REPAIR_TIMEOUT = Duration.ofMinutes(15);
    /** Submissions of a trial's job until both maps run on m2, the last run as it comes. */
    private static final int PLACEMENT_ATTEMPTS = 3;
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");
    private static final Pattern LOG_LINE = Pattern.compile("^(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3}) ");
    private static final Pattern RERUN = Pattern.compile("(attempt_\\d+_\\d+_([mr])_\\d+_[1-9]\\d*) TaskAttempt Transitioned from NEW to UNASSIGNED");
    private static final Pattern RERUN_RUNNING = Pattern.compile("attempt_\\d+_\\d+_m_\\d+_[1-9]\\d* TaskAttempt Transitioned from ASSIGNED to RUNNING");
    private static final String BY_FETCH_FAILURES = "Too many fetch-failures for output of task attempt";
    private static final String BY_UNUSABLE_NODE = "TaskAttempt killed because it ran on unusable node";
    /** A stock reducer's report of a failed fetch (ShuffleSchedulerImpl), and ours of a lost host (NodeLoss). */
    private static final String STOCK_REPORT = "Reporting fetch failure for";
    private static final String OUR_REPORT = "its map outputs are reported to the ApplicationMaster";
    static final String CSV_HEADER = "round,arm,fault,reduces,job,job_ms,fault_to_decision_ms,fault_to_rerun_ms,"
            + "fault_to_rerun_running_ms,fault_to_success_ms,maps_rerun,reduces_rerun,decisions_by_fetch_failures,"
            + "decisions_by_unusable_node,stock_fetch_failure_reports,our_lost_host_reports,hosts_lost,"
            + "node_loss_tcp_answered,identical,ok";

    /**
     * Stock's shuffle tuned to fail faster on a dead host, within its own keys (mapred-default.xml): one 30 s connect
     * try instead of 180 s, a 30 s read timeout, no retry loop for NodeManager restarts, penalties capped at 10 s, and a
     * report to the ApplicationMaster on a host's first failure instead of its fifth. The ApplicationMaster's own rule
     * (3 reports, half the shuffling reducers) stays: lowering it re-runs maps on any single reducer's failure.
     */
    static final Map<String, String> TUNED_SETTINGS = Map.of(
            MRJobConfig.SHUFFLE_CONNECT_TIMEOUT, "30000",
            MRJobConfig.SHUFFLE_READ_TIMEOUT, "30000",
            MRJobConfig.SHUFFLE_FETCH_RETRY_ENABLED, "false",
            MRJobConfig.MAX_SHUFFLE_FETCH_RETRY_DELAY, "10000",
            MRJobConfig.MAX_SHUFFLE_FETCH_HOST_FAILURES, "1");

    enum Arm {
        STOCK_DEFAULT(Shuffle.class, Map.of()),
        STOCK_TUNED(Shuffle.class, TUNED_SETTINGS),
        OURS(TipcShuffleConsumer.class, Map.of(TipcShuffleConfig.NODE_LOSS_ENABLED, "true"));

        final Class<?> consumer;
        final Map<String, String> settings;

        Arm(Class<?> consumer, Map<String, String> settings) {
            this.consumer = consumer;
            this.settings = settings;
        }

        String label() {
            return labelOf(this);
        }
    }

    enum Fault {
        LOSS("loss", "blackout-end", "m2's shuffle cut, then every frame of m2 dropped (TIPC and IP) until the job ends"),
        FLAP("bearer-flap-5s", null, "m2's TIPC bearer down for 5 s, IP up"),
        NODEMANAGER_RESTART("nodemanager-restart", null, "m2's NodeManager killed (SIGKILL) and restarted"),
        SHORT_BLACKOUT("blackout-2s", null, "every frame of m2 dropped for 2 s");

        final String action;
        final String repair;
        final String description;

        Fault(String action, String repair, String description) {
            this.action = action;
            this.repair = repair;
            this.description = description;
        }

        String label() {
            return labelOf(this);
        }
    }

    record Trial(Arm arm, Fault fault) {
        static Trial parse(String s) {
            String[] parts = s.split(":");
            return new Trial(Enum.valueOf(Arm.class, constant(parts[0])), Enum.valueOf(Fault.class, constant(parts[1])));
        }

        String label() {
            return arm.label() + ":" + fault.label();
        }
    }

    /** An arm's or a fault's name on the command line and in results: {@code STOCK_TUNED} is {@code stock-tuned}. */
    private static String labelOf(Enum<?> e) {
        return e.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private static String constant(String label) {
        return label.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }

    /** What the ApplicationMaster's and reducers' logs say of a job, times in ms since the epoch. */
    record Logs(OptionalLong firstDecision, OptionalLong firstRerun, OptionalLong firstRerunRunning, int mapsRerun,
                int reducesRerun, int byFetchFailures, int byUnusableNode, int stockReports, int ourReports) {
    }

    /** One trial's outcome; times from the fault in ms, -1 where it did not happen. */
    record Outcome(int round, Trial trial, int reduces, String job, long jobMillis, long toDecision, long toRerun,
                   long toRerunRunning, long toSuccess, Logs logs, long hostsLost, long tcpAnswered, boolean identical,
                   List<String> problems) {
        /** A row of {@link #CSV_HEADER}'s, as results.csv has it; a failed trial's problems are in its session's summary. */
        static Outcome of(Map<String, String> row, String session) {
            java.util.function.ToIntFunction<String> count = column -> Integer.parseInt(row.get(column));
            java.util.function.ToLongFunction<String> millis = column -> Long.parseLong(row.get(column));
            Logs logs = new Logs(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                    count.applyAsInt("maps_rerun"), count.applyAsInt("reduces_rerun"),
                    count.applyAsInt("decisions_by_fetch_failures"), count.applyAsInt("decisions_by_unusable_node"),
                    count.applyAsInt("stock_fetch_failure_reports"), count.applyAsInt("our_lost_host_reports"));
            return new Outcome(count.applyAsInt("round"), Trial.parse(row.get("arm") + ":" + row.get("fault")),
                    count.applyAsInt("reduces"), row.get("job"), millis.applyAsLong("job_ms"),
                    millis.applyAsLong("fault_to_decision_ms"), millis.applyAsLong("fault_to_rerun_ms"),
                    millis.applyAsLong("fault_to_rerun_running_ms"), millis.applyAsLong("fault_to_success_ms"), logs,
                    millis.applyAsLong("hosts_lost"), millis.applyAsLong("node_loss_tcp_answered"),
                    Boolean.parseBoolean(row.get("identical")),
                    Boolean.parseBoolean(row.get("ok")) ? List.of() : List.of("see " + session + "/summary.md"));
        }

        String csvRow() {
            return String.join(",", String.valueOf(round), trial.arm().label(), trial.fault().label(),
                    String.valueOf(reduces), job, String.valueOf(jobMillis), String.valueOf(toDecision),
                    String.valueOf(toRerun), String.valueOf(toRerunRunning), String.valueOf(toSuccess),
                    String.valueOf(logs.mapsRerun()), String.valueOf(logs.reducesRerun()),
                    String.valueOf(logs.byFetchFailures()), String.valueOf(logs.byUnusableNode()),
                    String.valueOf(logs.stockReports()), String.valueOf(logs.ourReports()), String.valueOf(hostsLost),
                    String.valueOf(tcpAnswered), String.valueOf(identical), String.valueOf(problems.isEmpty()));
        }
    }

    public static void main(String[] args) throws Exception {
        java.nio.file.Path out = java.nio.file.Path.of(args[0]);
        String[] rounds = args[1].split("-");
        int first = Integer.parseInt(rounds[0]);
        int last = Integer.parseInt(rounds[1]);
        ShuffleComparison.Spec spec = new ShuffleComparison.Spec(JOB, MAPS, Integer.parseInt(args[2]), RECORDS);
        List<Trial> trials = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            trials.add(Trial.parse(args[i]));
        }
        java.nio.file.Path work = Files.createTempDirectory("shuffle-node-loss");
        String expected = JOB.writeInput(work.resolve("in"), MAPS, RECORDS);
        List<Outcome> outcomes = new ArrayList<>();
        try (TestbedCluster cluster = TestbedCluster.connect(0)) {
            Path input = cluster.stageInput(work.resolve("in"));
            for (int round = first; round <= last; round++) {
                for (int t = 0; t < trials.size(); t++) {
                    Trial trial = trials.get((t + round - 1) % trials.size());
                    outcomes.add(trial(cluster, spec, input, round, trial, expected));
                    write(out, Machine.describe(), outcomes, "");
                }
            }
        }
        System.out.print(verdict(outcomes));
        System.exit(outcomes.stream().allMatch(o -> o.problems().isEmpty()) ? 0 : 1);
    }

    private static Outcome trial(TestbedCluster cluster, ShuffleComparison.Spec spec, Path input, int round,
                                 Trial trial, String expected) throws Exception {
        progress("round " + round + ", " + trial.label() + ": " + trial.fault().description);
        Job job;
        Path output;
        Path gate;
        TestbedCluster.Action fault;
        long deadline = System.currentTimeMillis() + JOB_TIMEOUT.toMillis();
        for (int attempt = 1; ; attempt++) {
            cluster.awaitHealthy(REPAIR_TIMEOUT);
            String name = "r" + round + "-" + trial.arm().label() + "-" + trial.fault().label() + "-" + attempt;
            output = cluster.outputPath(JOB.label() + "-" + name);
            gate = cluster.outputPath("gate-" + name);
            Map<String, String> settings = new HashMap<>(ShuffleComparison.JOB_SETTINGS);
            settings.put(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, "0");
            settings.put(MRJobConfig.MAP_CLASS_ATTR, GatedMapper.class.getName());
            settings.put(GatedMapper.GATE, gate.toString());
            settings.put(GatedMapper.STAGGER_MS, String.valueOf(STAGGER.toMillis()));
            settings.put(MRJobConfig.INPUT_FORMAT_CLASS_ATTR, PinnedInputFormat.class.getName());
            settings.put(PinnedInputFormat.HOSTS, PLACEMENT);
            settings.putAll(trial.arm().settings);
            job = ShuffleJobRunner.submit(cluster.config(), JOB, input, output, trial.arm().consumer, spec.reduces(),
                    settings);
            org.apache.hadoop.mapreduce.JobID id = job.getJobID();
            fault = cluster.request(VICTIM, "strike-" + MAPS + "-application_"
                    + id.getJtIdentifier() + "_" + String.format("%04d", id.getId()) + "-" + trial.fault().action);
            awaitReducers(cluster, job, spec.reduces(), deadline);
            String misplaced = awaitMapsPlaced(cluster, job, deadline);
            if (misplaced == null || attempt == PLACEMENT_ATTEMPTS) {
                break;
            }
            progress(misplaced + ": the job is killed and submitted again");
            job.killJob();
            fault.cancel();
            awaitAction(fault, new ArrayList<>()); // the cancelled strike fails, as it should
        }
        org.apache.hadoop.mapreduce.JobID id = job.getJobID();
        long struck = -1;
        progress("reducers shuffling; maps may run now");
        gate.getFileSystem(cluster.config()).create(gate).close();
        while (!job.isComplete()) {
            if (struck < 0 && fault.struck()) {
                struck = System.currentTimeMillis();
                progress("fault struck: " + trial.fault().action);
            }
            if (System.currentTimeMillis() > deadline) {
                job.killJob();
                break;
            }
            Thread.sleep(200);
        }
        List<String> problems = new ArrayList<>();
        if (struck < 0) {
            fault.cancel(); // m2 stops waiting for tasks that are over: its later actions must not wait behind it
        }
        awaitAction(fault, problems);
        if (trial.fault().repair != null) {
            cluster.act(VICTIM, trial.fault().repair, Duration.ofMinutes(1));
        }
        boolean identical = false;
        long hostsLost = 0;
        long tcpAnswered = 0;
        if (struck < 0) {
            problems.add("the fault never struck (m2's tasks never ended while the job ran)");
        }
        if (!job.isSuccessful()) {
            problems.add("job failed: " + job.getStatus().getFailureInfo());
        } else {
            ShuffleCluster.Result result = ShuffleJobRunner.collect(job, output);
            identical = result.sortedLines().equals(expected);
            if (!identical) {
                problems.add("output differs from the input's records");
            }
            hostsLost = result.counters().findCounter(TipcShuffleCounter.HOSTS_LOST).getValue();
            tcpAnswered = result.counters().findCounter(TipcShuffleCounter.NODE_LOSS_TCP_ANSWERED).getValue();
            problems.addAll(placement(job));
        }
        Logs logs = logs(cluster.containerSyslogs(id, 1));
        if (trial.fault() == Fault.LOSS && logs.mapsRerun() == 0) {
            problems.add("m2 was lost and no map re-ran (a reducer that fetched map 1's output before the cut leaves"
                    + " no fault to measure)");
        }
        if (trial.fault() != Fault.LOSS && logs.mapsRerun() > 0) {
            problems.add(logs.mapsRerun() + " map(s) re-ran on a fault that lost nothing");
        }
        long finished = job.getFinishTime();
        Outcome o = new Outcome(round, trial, spec.reduces(), id.toString(), finished - job.getStartTime(),
                since(struck, logs.firstDecision()), since(struck, logs.firstRerun()),
                since(struck, logs.firstRerunRunning()), struck < 0 || !job.isSuccessful() ? -1 : finished - struck,
                logs, hostsLost, tcpAnswered, identical, problems);
        progress(String.format("%s: job %.0f s, fault to re-run %s, to success %s, %d map(s) re-run%s",
                trial.label(), o.jobMillis() / 1e3, seconds(o.toRerun()), seconds(o.toSuccess()), logs.mapsRerun(),
                problems.isEmpty() ? "" : "; " + problems));
        return o;
    }

    /**
     * Waits until every reducer's log says its shuffle has begun, and then {@link #REDUCERS_SETTLED} more (in which ours
     * connects to TIPC's topology service and sees m2's name), so that they know m2 as it is before the fault: a
     * reducer that starts after its map host's loss never saw the host on TIPC. Under emulation a reducer's JVM can take
     * minutes to get there after the ApplicationMaster has it running.
     */
    private static void awaitReducers(TestbedCluster cluster, Job job, int reduces, long deadline)
            throws IOException, InterruptedException {
        while (true) {
            List<java.nio.file.Path> syslogs = cluster.containerSyslogs(job.getJobID(), 1);
            long started = 0;
            for (java.nio.file.Path log : syslogs.subList(Math.min(1, syslogs.size()), syslogs.size())) {
                started += Files.readAllLines(log).stream().anyMatch(l -> l.contains(SHUFFLE_BEGINS)) ? 1 : 0;
            }
            if (started >= reduces) {
                break;
            }
            if (System.currentTimeMillis() > deadline || job.isComplete()) {
                throw new IOException("the job's " + reduces + " reducers did not all begin their shuffle");
            }
            Thread.sleep(1000);
        }
        Thread.sleep(REDUCERS_SETTLED.toMillis());
    }

    /**
     * Waits until the job's maps, held at the gate, run: null when all of them run on m2, else where one runs instead
     * (the scheduler may give a map pinned to a busy m2 to m3, where the fault would miss it).
     */
    private static String awaitMapsPlaced(TestbedCluster cluster, Job job, long deadline)
            throws IOException, InterruptedException {
        while (true) {
            if (!cluster.containerSyslogs(job.getJobID(), 3).isEmpty()) {
                return "a map of " + job.getJobID() + " runs on m3, not m2";
            }
            if (cluster.containerSyslogs(job.getJobID(), VICTIM).size() >= MAPS) {
                return null;
            }
            if (System.currentTimeMillis() > deadline || job.isComplete()) {
                throw new IOException("the job's " + MAPS + " maps did not all start");
            }
            Thread.sleep(1000);
        }
    }

    /** Waits for the fault's action to end (a 5 s flap outlives a fast job); records it if it failed. */
    private static void awaitAction(TestbedCluster.Action action, List<String> problems) throws InterruptedException {
        long deadline = System.currentTimeMillis() + Duration.ofMinutes(5).toMillis();
        try {
            while (!action.done()) {
                if (System.currentTimeMillis() > deadline) {
                    problems.add("m2's action " + action.name() + " did not end within 5 minutes");
                    return;
                }
                Thread.sleep(200);
            }
        } catch (IOException e) {
            problems.add(e.getMessage());
        }
    }

    /** The maps' first attempts must have run where their splits were pinned, or the trial lost nothing it meant to. */
    private static List<String> placement(Job job) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        for (TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
            if (e.isMapTask() && e.getTaskAttemptId().getId() == 0) {
                placement(e.getTaskAttemptId().getTaskID().getId(), e.getTaskTrackerHttp()).ifPresent(problems::add);
            }
        }
        return problems;
    }

    /**
     * Why map {@code map}'s first attempt did not run where it was pinned, if it did not: {@code tracker} is where its
     * completion event says it ran, the ApplicationMaster's shuffle URL (http://host:port) while the job runs, the
     * history server's NodeManager address (host:port) once it is done.
     */
    static Optional<String> placement(int map, String tracker) {
        String host = tracker.replaceFirst("^https?://", "").replaceFirst(":.*$", "");
        String pinned = PLACEMENT.split(",")[map];
        return host.equals(pinned) ? Optional.empty() : Optional.of("map " + map + " ran on " + tracker + ", not " + pinned);
    }

    /** Reads the job's ApplicationMaster log (the first) and its reducers' logs, all on m1. */
    static Logs logs(List<java.nio.file.Path> syslogs) throws IOException {
        List<String> am = syslogs.isEmpty() ? List.of() : Files.readAllLines(syslogs.get(0));
        List<String> reducers = new ArrayList<>();
        for (java.nio.file.Path p : syslogs.subList(Math.min(1, syslogs.size()), syslogs.size())) {
            reducers.addAll(Files.readAllLines(p));
        }
        return logs(am, reducers);
    }

    static Logs logs(List<String> am, List<String> reducers) {
        OptionalLong decision = OptionalLong.empty();
        OptionalLong rerun = OptionalLong.empty();
        OptionalLong running = OptionalLong.empty();
        Set<String> maps = new TreeSet<>();
        Set<String> reduces = new TreeSet<>();
        int byFetch = 0;
        int byNode = 0;
        for (String line : am) {
            boolean fetch = line.contains(BY_FETCH_FAILURES);
            boolean node = line.contains(BY_UNUSABLE_NODE);
            byFetch += fetch ? 1 : 0;
            byNode += node ? 1 : 0;
            if ((fetch || node) && decision.isEmpty()) {
                decision = time(line);
            }
            Matcher m = RERUN.matcher(line);
            if (m.find()) {
                (m.group(2).equals("m") ? maps : reduces).add(m.group(1));
                if (m.group(2).equals("m") && rerun.isEmpty()) {
                    rerun = time(line);
                }
            }
            if (running.isEmpty() && RERUN_RUNNING.matcher(line).find()) {
                running = time(line);
            }
        }
        int stock = (int) reducers.stream().filter(l -> l.contains(STOCK_REPORT)).count();
        int ours = (int) reducers.stream().filter(l -> l.contains(OUR_REPORT)).count();
        return new Logs(decision, rerun, running, maps.size(), reduces.size(), byFetch, byNode, stock, ours);
    }

    private static OptionalLong time(String line) {
        Matcher m = LOG_LINE.matcher(line);
        if (!m.find()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(LocalDateTime.parse(m.group(1), LOG_TIME).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli());
    }

    private static long since(long struck, OptionalLong at) {
        return struck < 0 || at.isEmpty() ? -1 : at.getAsLong() - struck;
    }

    private static String seconds(long millis) {
        return millis < 0 ? "-" : String.format("%.1f s", millis / 1e3);
    }

    private static void progress(String what) {
        System.out.printf("node-loss: %s%n", what);
    }

    /** Writes OUT's results of {@code outcomes}, measured on {@code machine}, with {@code more} after the summary. */
    static void write(java.nio.file.Path out, String machine, List<Outcome> outcomes, String more) throws IOException {
        StringBuilder csv = new StringBuilder(CSV_HEADER).append('\n');
        outcomes.forEach(o -> csv.append(o.csvRow()).append('\n'));
        CategoryChart chart = Charts.bars("From m2's fault: first re-run map attempt and job success, each trial",
                "trial (round, arm, fault)", "seconds after the fault");
        List<String> labels = outcomes.stream().map(o -> o.round() + " " + o.trial().label()).toList();
        chart.addSeries("first re-run map attempt", labels, outcomes.stream().map(o -> (Number) Math.max(0, o.toRerun() / 1e3)).toList());
        chart.addSeries("job success", labels, outcomes.stream().map(o -> (Number) Math.max(0, o.toSuccess() / 1e3)).toList());
        chart.getStyler().setXAxisLabelRotation(60);
        Charts.save(out, "plot", chart);
        Results.write(out, "A map host lost mid-shuffle on the testbed cluster", csv, machine, summary(outcomes) + more);
    }

    static String summary(List<Outcome> outcomes) {
        String reduces = outcomes.stream().map(o -> String.valueOf(o.reduces())).distinct()
                .collect(java.util.stream.Collectors.joining(" or "));
        StringBuilder s = new StringBuilder("Job: ").append(JOB.label()).append(", ").append(MAPS)
                .append(" maps x ").append(reduces).append(" reducers (reducers and the ApplicationMaster on m1,")
                .append(" started with the job); both maps on m2, held at a gate until every reducer's shuffle has begun (and")
                .append(" ").append(REDUCERS_SETTLED.toSeconds()).append(" s more), then map 1 finishing ").append(STAGGER.toSeconds())
                .append(" s after map 0 (a job with a map on m3 instead is killed and submitted again, up to ")
                .append(PLACEMENT_ATTEMPTS).append(" times); m3 idle, where a lost map re-runs. The fault strikes on m2 the moment map 1 has")
                .append(" done its work, before it tells the ApplicationMaster so: no reducer can have its output. Times are from the fault (m2's mark, seen on m1 within")
                .append(" 0.2 s) to the ApplicationMaster's first decision that a map's output is lost (too many fetch")
                .append(" failures, or its node unusable), the first re-run map attempt it creates, that attempt running,")
                .append(" and the job's success (the AM's and the driver's clocks are m1's). Output compared with the")
                .append(" input's records. Command: `benchmarks/shuffle-node-loss`.\n\n");
        s.append("Stock tuned: ").append(new java.util.TreeMap<>(TUNED_SETTINGS)).append(" (our reading of")
                .append(" mapred-default.xml's keys for failing faster on a dead host; no vendor guide gives values).")
                .append(" Ours: `").append(TipcShuffleConfig.NODE_LOSS_ENABLED).append("` true, hold-down and probe")
                .append(" at their defaults.\n\n");
        s.append("| round | trial | job | fault -> decision | -> re-run | -> re-run running | -> success | maps / reduces re-run")
                .append(" | decisions (fetch failures / unusable node) | reports (stock / ours) | identical | verdict |\n");
        s.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            Logs l = o.logs();
            s.append(String.format("| %d | %s | %.0f s | %s | %s | %s | %s | %d / %d | %d / %d | %d / %d | %s | %s |%n",
                    o.round(), o.trial().label(), o.jobMillis() / 1e3, seconds(o.toDecision()), seconds(o.toRerun()),
                    seconds(o.toRerunRunning()), seconds(o.toSuccess()), l.mapsRerun(), l.reducesRerun(),
                    l.byFetchFailures(), l.byUnusableNode(), l.stockReports(), l.ourReports(),
                    o.identical() ? "yes" : "no", o.problems().isEmpty() ? "ok" : "FAILED: " + String.join("; ", o.problems())));
        }
        s.append(medians(outcomes));
        return s.toString();
    }

    /** Each arm's medians over its loss trials, and ours against each stock arm round by round. */
    private static String medians(List<Outcome> outcomes) {
        Map<Arm, List<Outcome>> losses = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            if (o.trial().fault() == Fault.LOSS && o.toSuccess() >= 0) {
                losses.computeIfAbsent(o.trial().arm(), a -> new ArrayList<>()).add(o);
            }
        }
        if (losses.isEmpty()) {
            return "";
        }
        StringBuilder s = new StringBuilder("\nLoss of m2, medians per arm:\n\n| arm | trials | fault -> re-run | fault -> success |\n|---|---|---|---|\n");
        losses.forEach((arm, os) -> s.append(String.format("| %s | %d | %s | %.1f s |%n", arm.label(), os.size(),
                os.stream().allMatch(o -> o.toRerun() >= 0)
                        ? String.format("%.1f s", Stats.median(os, o -> o.toRerun()) / 1e3) : "not in every trial",
                Stats.median(os, o -> o.toSuccess()) / 1e3)));
        for (Arm stock : new Arm[] {Arm.STOCK_DEFAULT, Arm.STOCK_TUNED}) {
            List<String> ratios = new ArrayList<>();
            for (Outcome ours : losses.getOrDefault(Arm.OURS, List.of())) {
                Optional<Outcome> other = losses.getOrDefault(stock, List.of()).stream()
                        .filter(o -> o.round() == ours.round()).findFirst();
                other.ifPresent(o -> ratios.add(String.format("%.2f", (double) ours.toSuccess() / o.toSuccess())));
            }
            if (!ratios.isEmpty()) {
                s.append("\nOurs / ").append(stock.label()).append(", fault to success, round by round: ")
                        .append(String.join(", ", ratios)).append('\n');
            }
        }
        return s.toString();
    }

    static String verdict(List<Outcome> outcomes) {
        StringBuilder s = new StringBuilder("\n== node loss ==\n");
        for (Outcome o : outcomes) {
            s.append(o.round()).append(' ').append(o.trial().label()).append(": ")
                    .append(o.problems().isEmpty() ? "ok" : "FAILED: " + o.problems()).append('\n');
        }
        return s.toString();
    }

    private NodeLossBenchmark() {
    }
}
