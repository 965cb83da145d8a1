package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.BitSet;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hadooptipc.hdfs.Settings;

/**
 * The process's one {@link CoreAffinityManager} and load sampler, shared by the volume
 * choosing policy (on the writer threads) and the DataNode plugin (which runs the
 * sampler). One per process, not per DataNode: the CPUs belong to the process, and a
 * MiniDFSCluster runs several DataNodes in one. The first configuration to ask decides.
 */
final class ProcessAffinity {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessAffinity.class);

    /** Null until first asked for; empty when switched off or the machine cannot be read. */
    private static Optional<CoreAffinityManager> manager;
    private static long sampleIntervalMs;
    private static ScheduledExecutorService sampler;
    private static int samplerUsers;

    private ProcessAffinity() {
    }

    static synchronized Optional<CoreAffinityManager> manager(Configuration conf) {
        if (manager == null) {
            Configuration c = Settings.withDefaults(conf);
            // read here, on the DataNode's start-up path, so that a bad value stops it there
            sampleIntervalMs = Settings.positiveLong(c, AffinitySettings.LOAD_SAMPLE_INTERVAL_MS);
            manager = create(c, Paths.get("/sys"), Paths.get("/proc"));
        }
        return manager;
    }

    static Optional<CoreAffinityManager> create(Configuration conf, Path sys, Path proc) {
        if (!Settings.bool(conf, AffinitySettings.ENABLED)) {
            LOG.info("Core affinity for DataNode writer threads is off ({} = false)", AffinitySettings.ENABLED);
            return Optional.empty();
        }
        try {
            CpuTopology topology = new TopologyReader(sys, proc).read(conf.getTrimmed(AffinitySettings.NIC, ""));
            CoreAffinityManager m = new CoreAffinityManager(topology, allowedCpus(proc));
            LinuxThreads.currentThreadAffinity(); // loads the native binding now rather than on a writer
            LOG.info("Core affinity for DataNode writer threads: {}", topology);
            return Optional.of(m);
        } catch (Exception | LinkageError e) {
            LOG.warn("Core affinity for DataNode writer threads is off: cannot read this machine's CPU topology"
                    + " or bind threads ({}); writers run wherever the scheduler puts them", e.toString());
            return Optional.empty();
        }
    }

    /** The CPUs of the process (its main thread), which a cpuset or taskset may have narrowed. */
    private static BitSet allowedCpus(Path proc) throws IOException {
        return Files.readAllLines(proc.resolve("self/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> CpuList.parse(l.substring(l.indexOf(':') + 1)))
                .findFirst().orElseThrow(() -> new IOException("no Cpus_allowed_list in " + proc + "/self/status"));
    }

    /** Starts the load sampler for the first user; each user calls {@link #stopSampling()} once. */
    static synchronized void startSampling(Configuration conf) {
        Optional<CoreAffinityManager> m = manager(conf);
        if (!m.isPresent()) {
            return;
        }
        samplerUsers++;
        if (sampler != null) {
            return;
        }
        CpuLoadSampler loads = new CpuLoadSampler(Paths.get("/proc"));
        sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "writer-affinity-load-sampler");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleAtFixedRate(() -> {
            try {
                m.get().updateLoad(loads.sample());
            } catch (Exception e) {
                LOG.warn("Stopped sampling CPU load for writer affinity: {}", e.toString());
                throw new IllegalStateException(e); // ends the periodic task
            }
        }, 0, sampleIntervalMs, TimeUnit.MILLISECONDS);
    }

    static synchronized void stopSampling() {
        if (samplerUsers > 0 && --samplerUsers == 0 && sampler != null) {
            sampler.shutdownNow();
            sampler = null;
        }
    }
}
