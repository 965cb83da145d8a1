package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;

/**
 * A MiniMRYarnCluster whose NodeManagers run a chosen {@code mapreduce_shuffle} class,
 * all in this JVM, on the local file system or on HDFS (a MiniDFSCluster of one DataNode, also
 * in this JVM, as the default file system). MiniMRYarnCluster writes the stock
 * ShuffleHandler into the aux-service key during init; a configuration that keeps our
 * value of that one key lets the cluster under test run ours.
 */
public final class MiniShuffleCluster implements ShuffleCluster {
    public static final String AUX_SERVICE_CLASS = String.format(YarnConfiguration.NM_AUX_SERVICE_FMT,
            ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);

    private final MiniMRYarnCluster cluster;
    /** null: the local file system. */
    private final MiniDFSCluster hdfs;
    private final Class<? extends AuxiliaryService> handler;
    private final int nodeManagers;
    private final java.nio.file.Path output;

    private MiniShuffleCluster(MiniMRYarnCluster cluster, MiniDFSCluster hdfs, Class<? extends AuxiliaryService> handler,
                               int nodeManagers) throws IOException {
        this.cluster = cluster;
        this.hdfs = hdfs;
        this.handler = handler;
        this.nodeManagers = nodeManagers;
        this.output = Files.createTempDirectory(cluster.getName() + "-out");
    }

    /** On the local file system: tasks read their input where it was written, and write beside it. */
    public static MiniShuffleCluster start(String name, Class<? extends AuxiliaryService> handler, int nodeManagers)
            throws IOException {
        return start(name, handler, nodeManagers, null);
    }

    /**
     * On HDFS, as a real cluster's jobs run: inputs are copied in, outputs, staging and job history written there,
     * and every task and ApplicationMaster opens it.
     */
    public static MiniShuffleCluster startOnHdfs(String name, Class<? extends AuxiliaryService> handler, int nodeManagers)
            throws IOException {
        Configuration dfsConf = new Configuration();
        dfsConf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Files.createTempDirectory(name + "-hdfs").toString());
        MiniDFSCluster hdfs = new MiniDFSCluster.Builder(dfsConf).numDataNodes(1).build();
        hdfs.waitActive();
        return start(name, handler, nodeManagers, hdfs);
    }

    private static MiniShuffleCluster start(String name, Class<? extends AuxiliaryService> handler, int nodeManagers,
                                            MiniDFSCluster hdfs) throws IOException {
        MiniMRYarnCluster cluster = new MiniMRYarnCluster(name, nodeManagers);
        Configuration conf = new PinnedKeyConfiguration(AUX_SERVICE_CLASS, handler.getName());
        if (hdfs != null) {
            conf.set(FileSystem.FS_DEFAULT_NAME_KEY, hdfs.getFileSystem().getUri().toString());
            conf.set(MRJobConfig.MR_AM_STAGING_DIR, "/apps_staging_dir");
        }
        conf.setBoolean("mapreduce.minicluster.control-resource-monitoring", false);
        conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
        conf.setInt(YarnConfiguration.NM_VCORES, 4);
        conf.setBoolean("yarn.minicluster.fixed.ports", false);
        // Hadoop 3.4's MR AM (Guice 4 cglib) reflects into java.lang, closed by default on Java 17: added to
        // the admin options of a mapred-site.xml on the class path (testbed/cluster/cds-archive sets some).
        conf.set(MRJobConfig.MR_AM_ADMIN_COMMAND_OPTS, new JobConf(conf).get(MRJobConfig.MR_AM_ADMIN_COMMAND_OPTS, "")
                + " --add-opens java.base/java.lang=ALL-UNNAMED");
        cluster.init(conf);
        cluster.start();
        return new MiniShuffleCluster(cluster, hdfs, handler, nodeManagers);
    }

    @Override
    public Configuration config() {
        return cluster.getConfig();
    }

    /** Runs {@code job} over a local {@code input} with the given shuffle consumer, writing a local {@code output}. */
    public Result run(ShuffleJob job, java.nio.file.Path input, java.nio.file.Path output, Class<?> consumer, int reduces,
                      Map<String, String> settings) throws Exception {
        return ShuffleJobRunner.run(config(), job, stageInput(input), new Path(output.toUri()), consumer, reduces, settings);
    }

    /** On the local file system tasks read the input where it was written; on HDFS, a copy under {@link #HDFS_INPUTS}. */
    @Override
    public Path stageInput(java.nio.file.Path local) throws IOException {
        return hdfs == null ? new Path(local.toUri()) : ShuffleCluster.stage(hdfs.getFileSystem(), local, HDFS_INPUTS);
    }

    @Override
    public Path outputPath(String name) {
        if (hdfs == null) {
            return new Path(output.resolve(name).toUri());
        }
        return new Path(hdfs.getURI().resolve(new Path(HDFS_OUTPUTS, name).toUri()));
    }

    /** The NodeManagers run in this JVM: the CPU time of their live shuffle-serving threads. */
    @Override
    public long servingCpuNanos() {
        return ShuffleComparison.servingCpuNanos();
    }

    @Override
    public long crossMachineTipcBytes() {
        return -1;
    }

    /** Every daemon runs in this JVM, on no machine of its own: no count per machine. */
    @Override
    public long[] guestInstructions() {
        return new long[0];
    }

    @Override
    public String description() {
        return "One MiniMRYarnCluster (every daemon in one JVM) with " + nodeManagers + " NodeManager(s) running `"
                + handler.getSimpleName() + "`, on " + (hdfs == null ? "the local file system" : "HDFS (a MiniDFSCluster of one DataNode)")
                + ": one machine, so any TIPC in it is node-local.";
    }

    /** Stops the cluster and deletes the outputs written under {@link #outputPath}: results hold their bytes. */
    @Override
    public void close() {
        cluster.stop();
        if (hdfs != null) {
            hdfs.shutdown(true);
        }
        FileUtil.fullyDelete(output.toFile());
    }

    private static final class PinnedKeyConfiguration extends YarnConfiguration {
        private final String key;
        private final String value;

        PinnedKeyConfiguration(String key, String value) {
            this.key = key;
            this.value = value;
            super.set(key, value, "test");
        }

        @Override
        public void set(String name, String value, String source) {
            if (!name.equals(key) || value.equals(this.value)) {
                super.set(name, value, source);
            }
        }
    }
}
