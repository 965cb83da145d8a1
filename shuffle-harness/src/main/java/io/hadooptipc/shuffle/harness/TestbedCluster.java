package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.GuestInstructions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The real cluster of {@code testbed/cluster/hadoop-cluster}, seen from its machine 1, where this
 * runs: Hadoop's daemons as separate JVMs on separate TIPC machines, HDFS for inputs and outputs,
 * configured by {@code HADOOP_CONF_DIR} on the class path. Three things are measured outside the
 * job: each NodeManager's shuffle-serving CPU, which the cluster script's probe on every machine
 * reads from /proc when asked through the shared run directory, the TIPC frames other than
 * link supervision through this machine's NIC, which a tc filter counts in the kernel, and, in
 * {@code tipc-vm --count-instructions}, the instructions each machine executed.
 */
public final class TestbedCluster implements ShuffleCluster {
    private static final Pattern SENT = Pattern.compile("Sent (\\d+) bytes");
    private static final long PROBE_TIMEOUT_MILLIS = 120_000;
    /** The node label of the machines that run map tasks (hadoop-cluster sets it). */
    private static final String MAPS_LABEL = "maps";

    private final Configuration conf;
    private final FileSystem fs;
    private final int machines;
    /** YARN memory of each map machine's NodeManager. */
    private final long mapMachineMb;
    private final java.nio.file.Path probes;
    private final String nic;
    private int probe;

    private TestbedCluster(Configuration conf, FileSystem fs, int machines, long mapMachineMb, java.nio.file.Path run,
                           String nic) {
        this.conf = conf;
        this.fs = fs;
        this.machines = machines;
        this.mapMachineMb = mapMachineMb;
        this.probes = run.resolve("probes");
        this.nic = nic;
    }

    /**
     * Connects once all {@code machines} NodeManagers are running and as many DataNodes live, with HDFS out of
     * safe mode. {@code run} is the cluster script's shared run directory, {@code nic} this machine's TIPC bearer.
     * A job runs at most {@code tasksAtOnce} maps on each map machine and as many reducers at a time (0: no limit).
     * Maps are held to it by their container size: {@code mapreduce.job.running.map.limit} would send them anywhere, as
     * Hadoop's RMContainerRequestor asks for the containers it caps without the maps' node label expression.
     */
    static TestbedCluster connect(int machines, int tasksAtOnce, java.nio.file.Path run, String nic)
            throws IOException, InterruptedException {
        JobConf conf = new JobConf(new YarnConfiguration());
        conf.setInt(MRJobConfig.JOB_RUNNING_REDUCE_LIMIT, tasksAtOnce);
        // Tasks time their shuffle with TimedShuffleConsumer, which no node has installed: it goes with each job.
        conf.set("tmpjars", TimedShuffleConsumer.class.getProtectionDomain().getCodeSource().getLocation().toString());
        long deadline = System.currentTimeMillis() + 900_000;
        long mapMachineMb;
        try (YarnClient yarn = YarnClient.createYarnClient()) {
            yarn.init(conf);
            yarn.start();
            while (yarn.getNodeReports(NodeState.RUNNING).size() < machines) {
                awaitUntil(deadline, "NodeManagers to register with the ResourceManager");
            }
            // Until the ResourceManager has accepted the map machines' label, reducers could land there.
            while (yarn.getLabelsToNodes(Set.of(MAPS_LABEL)).getOrDefault(MAPS_LABEL, Set.of()).size() < machines - 1) {
                awaitUntil(deadline, "the NodeManagers of m2..m" + machines + " to carry node label " + MAPS_LABEL);
            }
            mapMachineMb = yarn.getNodeReports(NodeState.RUNNING).stream()
                    .filter(r -> r.getNodeLabels().contains(MAPS_LABEL))
                    .mapToLong(r -> r.getCapability().getMemorySize()).min().orElseThrow();
        } catch (org.apache.hadoop.yarn.exceptions.YarnException e) {
            throw new IOException(e);
        }
        DistributedFileSystem dfs = (DistributedFileSystem) FileSystem.get(conf);
        while (dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE).length < machines
                || dfs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_GET)) {
            awaitUntil(deadline, "DataNodes to register with the NameNode and HDFS to leave safe mode");
        }
        if (tasksAtOnce > 0) {
            conf.setLong(MRJobConfig.MAP_MEMORY_MB, mapContainerMb(mapMachineMb, tasksAtOnce,
                    conf.getInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB,
                            YarnConfiguration.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB)));
        }
        return new TestbedCluster(conf, dfs, machines, mapMachineMb, run, nic);
    }

    /**
     * The largest map container of which a machine of {@code machineMb} holds {@code mapsAtOnce}: a multiple of the
     * scheduler's minimum allocation, since the scheduler rounds every request up to one.
     */
    static long mapContainerMb(long machineMb, int mapsAtOnce, int minimumAllocationMb) {
        long mb = machineMb / mapsAtOnce / minimumAllocationMb * minimumAllocationMb;
        if (mb < minimumAllocationMb) {
            throw new IllegalArgumentException(mapsAtOnce + " maps at once do not fit in " + machineMb + " MB");
        }
        return mb;
    }

    @Override
    public void checkPlacement(String job, Set<String> mapHosts, Set<String> reduceHosts) {
        requireMapsApart(job, mapHosts, reduceHosts);
    }

    /** Maps on the machine of their reducers would shuffle without a link: the job's figures would say nothing. */
    static void requireMapsApart(String job, Set<String> mapHosts, Set<String> reduceHosts) {
        Set<String> shared = new TreeSet<>(mapHosts);
        shared.retainAll(reduceHosts);
        if (!shared.isEmpty()) {
            throw new IllegalStateException(job + " ran maps on " + shared + ", where its reducers ran too (maps on "
                    + mapHosts + ", reducers on " + reduceHosts + "): their output did not cross a link. Maps run only"
                    + " on machines labelled " + MAPS_LABEL + " unless their container requests lose the label.");
        }
    }

    /** {@link #connect} to the cluster of the testbed machine this runs on, as {@code hadoop-cluster} describes it in the environment. */
    public static TestbedCluster connect(int tasksAtOnce) throws IOException, InterruptedException {
        return connect(Integer.parseInt(System.getenv("TIPC_TESTBED_MACHINES")), tasksAtOnce,
                java.nio.file.Path.of(System.getenv("HADOOP_CLUSTER_RUN")), System.getenv("HADOOP_CLUSTER_NIC"));
    }

    private static void awaitUntil(long deadline, String what) throws IOException, InterruptedException {
        if (System.currentTimeMillis() > deadline) {
            throw new IOException("gave up waiting for " + what);
        }
        Thread.sleep(1000);
    }

    @Override
    public Configuration config() {
        return conf;
    }

    @Override
    public Path stageInput(java.nio.file.Path local) throws IOException {
        return ShuffleCluster.stage(fs, local, HDFS_INPUTS);
    }

    @Override
    public Path outputPath(String name) {
        return fs.makeQualified(new Path(HDFS_OUTPUTS, name));
    }

    /** Asks every machine's probe for its NodeManager's serving-thread CPU and adds the answers up. */
    @Override
    public long servingCpuNanos() throws IOException {
        int id = ++probe;
        Files.createDirectories(probes);
        Files.createFile(probes.resolve(id + ".req"));
        long total = 0;
        long deadline = System.currentTimeMillis() + PROBE_TIMEOUT_MILLIS;
        for (int machine = 1; machine <= machines; machine++) {
            java.nio.file.Path answer = probes.resolve(id + ".m" + machine);
            while (true) {
                try {
                    total += Long.parseLong(Files.readString(answer, StandardCharsets.US_ASCII).trim());
                    break;
                } catch (NoSuchFileException e) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IOException("machine " + machine + "'s probe did not answer within "
                                + PROBE_TIMEOUT_MILLIS / 1000 + " s (" + answer + ")");
                    }
                    sleep(100);
                }
            }
        }
        return total;
    }

    /**
     * Has machine {@code machine}'s cluster script carry out {@code action} (a fault or its repair: see {@code act} in
     * hadoop-cluster) and waits until it is done; fails with what the action printed if it failed.
     */
    public void act(int machine, String action, Duration timeout) throws IOException {
        Action a = request(machine, action);
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!a.done()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IOException("machine " + machine + " did not " + action + " within " + timeout.toSeconds() + " s");
            }
            sleep(200);
        }
    }

    /** Asks machine {@code machine}'s cluster script for {@code action} and returns at once. */
    public Action request(int machine, String action) throws IOException {
        java.nio.file.Path actions = probes.resolveSibling("actions");
        Files.createDirectories(actions);
        java.nio.file.Path request = actions.resolve(++probe + ".m" + machine + "." + action);
        Files.createFile(request);
        return new Action(request, machine, action);
    }

    /** An action under way on a machine, as its files in the shared run directory tell. */
    public static final class Action {
        private final java.nio.file.Path request;
        private final int machine;
        private final String name;

        Action(java.nio.file.Path request, int machine, String name) {
            this.request = request;
            this.machine = machine;
            this.name = name;
        }

        public String name() {
            return name;
        }

        /** Whether the action is done; fails with what it printed if it failed. */
        public boolean done() throws IOException {
            if (Files.exists(answer("failed"))) {
                throw new IOException("machine " + machine + " could not " + name + ": " + Files.readString(answer("failed")));
            }
            return Files.exists(answer("done"));
        }

        /**
         * Gives up a strike-* action that has not struck: the machine stops waiting for its moment (it carries out its
         * actions one at a time, so a strike that never comes would hold every later one) and reports it failed.
         */
        public void cancel() throws IOException {
            if (!struck()) {
                Files.write(answer("cancel"), new byte[0]);
            }
        }

        /** Whether a strike-* action has struck (the moment it waited for came, and the fault begins). */
        public boolean struck() {
            return Files.exists(answer("struck"));
        }

        private java.nio.file.Path answer(String outcome) {
            return request.resolveSibling(request.getFileName() + "." + outcome);
        }
    }

    /**
     * Waits until all the cluster's NodeManagers are running, none with a container left, and its DataNodes live
     * again, as after a machine's fault is repaired: a job submitted then finds its tasks' pinned machines free. Fails
     * after {@code timeout}.
     */
    public void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        try (YarnClient yarn = YarnClient.createYarnClient()) {
            yarn.init(conf);
            yarn.start();
            while (yarn.getNodeReports(NodeState.RUNNING).size() < machines) {
                awaitUntil(deadline, "all " + machines + " NodeManagers to run again");
            }
            while (containersLeft(yarn) > 0) {
                awaitUntil(deadline, "the NodeManagers' containers of earlier jobs to end");
            }
        } catch (org.apache.hadoop.yarn.exceptions.YarnException e) {
            throw new IOException(e);
        }
        while (((DistributedFileSystem) fs).getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE).length < machines) {
            awaitUntil(deadline, "all " + machines + " DataNodes to live again");
        }
    }

    private static int containersLeft(YarnClient yarn)
            throws IOException, org.apache.hadoop.yarn.exceptions.YarnException {
        int left = 0;
        for (NodeReport node : yarn.getNodeReports(NodeState.RUNNING)) {
            left += node.getNumContainers();
        }
        return left;
    }

    /**
     * The {@code syslog} of each of {@code job}'s containers that ran on machine {@code machine} (its NodeManager's log
     * directory in the shared run directory), the ApplicationMaster's first: the container of the lowest number.
     */
    public List<java.nio.file.Path> containerSyslogs(org.apache.hadoop.mapreduce.JobID job, int machine) throws IOException {
        java.nio.file.Path app = probes.resolveSibling("m" + machine).resolve("containers")
                .resolve("application_" + job.getJtIdentifier() + "_" + String.format("%04d", job.getId()));
        if (!Files.isDirectory(app)) {
            return List.of();
        }
        try (Stream<java.nio.file.Path> containers = Files.list(app)) {
            return containers.sorted().map(c -> c.resolve("syslog")).filter(Files::exists).collect(Collectors.toList());
        }
    }

    /**
     * Bytes of TIPC frames other than link supervision that this machine's NIC received and sent (hadoop-cluster's
     * tc filter 2): every reducer is here, every map output elsewhere.
     */
    @Override
    public long crossMachineTipcBytes() throws IOException {
        return tcFilterBytes("ingress") + tcFilterBytes("egress");
    }

    @Override
    public long[] guestInstructions() throws IOException {
        return GuestInstructions.counted() ? GuestInstructions.ofMachines(machines) : new long[0];
    }

    private long tcFilterBytes(String direction) throws IOException {
        Process tc = new ProcessBuilder("tc", "-s", "filter", "show", "dev", nic, direction, "pref", "2")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(tc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (tc.waitFor() != 0) {
                throw new IOException("tc -s filter show dev " + nic + " " + direction + " pref 2 failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
        Matcher m = SENT.matcher(out);
        if (!m.find()) {
            throw new IOException("no TIPC frame counter on " + nic + " " + direction + ": " + out);
        }
        return Long.parseLong(m.group(1));
    }

    @Override
    public String description() {
        long mapMb = conf.getLong(MRJobConfig.MAP_MEMORY_MB, -1);
        int reduceLimit = conf.getInt(MRJobConfig.JOB_RUNNING_REDUCE_LIMIT, MRJobConfig.DEFAULT_JOB_RUNNING_REDUCE_LIMIT);
        String islands = System.getenv().getOrDefault("TIPC_TESTBED_ISLANDS", "1");
        int perIsland = machines / Integer.parseInt(islands);
        return machines + " testbed machines (separate QEMU guests, one TIPC node each, on one emulated Ethernet "
                + "segment) running Hadoop's own daemons as separate JVMs: NameNode, ResourceManager and "
                + "JobHistoryServer on m1, a DataNode and a NodeManager with `TipcShuffleHandler` on every machine, "
                + "installed from our distribution tarball. Map tasks run only on "
                + (machines == 2 ? "m2" : "m2..m" + machines) + " (node label), reducers and ApplicationMasters on m1, "
                + (islands.equals("1")
                ? "so every shuffled byte crosses a TIPC link (or, for the stock shuffle, TCP over the same wire)."
                : "so every shuffled byte crosses machines. The machines form " + islands + " TIPC islands of " + perIsland
                + " (m1..m" + perIsland + " the first), each a TIPC cluster with its own network id, so TIPC links"
                + " only machines of one island; Hadoop's rack awareness places machine k of island i at"
                + " /island<i>/rack<k>, and with `" + TipcShuffleConfig.ISLAND_LEVEL + "` = 1 our reducers fetch from"
                + " their island's map hosts over TIPC and from the others' over HTTP/TCP (`TCP_OTHER_ISLAND`).")
                + (reduceLimit > 0 ? " A job runs at most " + mapMachineMb / mapMb + " maps at a time on each map machine"
                + " (map containers of " + mapMb + " MB on its NodeManager's " + mapMachineMb + " MB; a container's size"
                + " sets no heap) and " + reduceLimit + " reducers at a time (`mapreduce.job.running.reduce.limit`)." : "");
    }

    @Override
    public void close() throws IOException {
        fs.close();
    }

    private static void sleep(long millis) throws InterruptedIOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
    }
}
