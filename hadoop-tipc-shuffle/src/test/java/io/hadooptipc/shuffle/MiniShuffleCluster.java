package io.hadooptipc.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobHistoryUtils;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A MiniMRYarnCluster whose NodeManagers run a chosen {@code mapreduce_shuffle} class,
 * and the {@link ShuffleJob}s to run on it. MiniMRYarnCluster writes the stock
 * ShuffleHandler into the aux-service key during init; a configuration that keeps our
 * value of that one key lets the cluster under test run ours.
 */
public final class MiniShuffleCluster implements AutoCloseable {
    public static final String AUX_SERVICE_CLASS = String.format(YarnConfiguration.NM_AUX_SERVICE_FMT,
            ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);

    private final MiniMRYarnCluster cluster;

    private MiniShuffleCluster(MiniMRYarnCluster cluster) {
        this.cluster = cluster;
    }

    public static MiniShuffleCluster start(String name, Class<? extends AuxiliaryService> handler, int nodeManagers) {
        MiniMRYarnCluster cluster = new MiniMRYarnCluster(name, nodeManagers);
        Configuration conf = new PinnedKeyConfiguration(AUX_SERVICE_CLASS, handler.getName());
        conf.setBoolean("mapreduce.minicluster.control-resource-monitoring", false);
        conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
        conf.setInt(YarnConfiguration.NM_VCORES, 4);
        conf.setBoolean("yarn.minicluster.fixed.ports", false);
        // Hadoop 3.4's MR AM (Guice 4 cglib) reflects into java.lang, closed by default on Java 17.
        conf.set("yarn.app.mapreduce.am.admin-command-opts", "--add-opens java.base/java.lang=ALL-UNNAMED");
        cluster.init(conf);
        cluster.start();
        return new MiniShuffleCluster(cluster);
    }

    public Configuration config() {
        return cluster.getConfig();
    }

    /** Runs {@code job} over {@code input} with the given shuffle consumer; the output's part files and the job's counters. */
    public Result run(ShuffleJob job, java.nio.file.Path input, java.nio.file.Path output, Class<?> consumer, int reduces,
                      Map<String, String> settings) throws Exception {
        Configuration conf = new Configuration(cluster.getConfig());
        conf.setClass(MRConfig.SHUFFLE_CONSUMER_PLUGIN, consumer, Object.class);
        conf.setInt(MRJobConfig.MAP_MEMORY_MB, 384);
        conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 384);
        conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 512);
        conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx256m");
        conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx256m");
        settings.forEach(conf::set);
        Job mr = Job.getInstance(conf, job.label() + " via " + consumer.getSimpleName());
        job.configure(mr);
        mr.setNumReduceTasks(reduces);
        FileInputFormat.addInputPath(mr, new Path(input.toUri()));
        FileOutputFormat.setOutputPath(mr, new Path(output.toUri()));
        if (!mr.waitForCompletion(true)) {
            throw new AssertionError("job " + mr.getJobID() + " failed: " + mr.getStatus().getFailureInfo());
        }
        Map<String, byte[]> parts = new TreeMap<>();
        FileSystem fs = FileSystem.getLocal(conf);
        for (FileStatus s : fs.listStatus(new Path(output.toUri()), p -> p.getName().startsWith("part-"))) {
            parts.put(s.getPath().getName(), Files.readAllBytes(java.nio.file.Path.of(s.getPath().toUri())));
        }
        return new Result(mr.getJobID(), parts, mr.getCounters());
    }

    /**
     * The job's history as its ApplicationMaster recorded it (every attempt's times and
     * counters). The AM writes the file as it shuts down, which can be after the client saw
     * the job succeed, and the history server later moves it: both places are searched.
     */
    public JobHistoryParser.JobInfo history(JobID job) throws IOException, InterruptedException {
        Configuration conf = cluster.getConfig();
        Path[] dirs = {new Path(JobHistoryUtils.getConfiguredHistoryIntermediateDoneDirPrefix(conf)),
                new Path(JobHistoryUtils.getConfiguredHistoryServerDoneDirPrefix(conf))};
        for (int wait = 0; wait < 600; wait++) {
            for (Path dir : dirs) {
                FileSystem fs = dir.getFileSystem(conf);
                if (!fs.exists(dir)) {
                    continue;
                }
                RemoteIterator<LocatedFileStatus> files = fs.listFiles(dir, true);
                while (files.hasNext()) {
                    Path file = files.next().getPath();
                    if (file.getName().startsWith(job.toString()) && file.getName().endsWith(".jhist")) {
                        return new JobHistoryParser(fs, file).parse();
                    }
                }
            }
            Thread.sleep(500);
        }
        throw new IOException("no history file of " + job + " under " + Arrays.toString(dirs));
    }

    @Override
    public void close() {
        cluster.stop();
    }

    /** A job's id, output part files and counters. */
    public record Result(JobID id, Map<String, byte[]> parts, Counters counters) {
        /** Every line of every part file, sorted: what a job's output must equal, whatever its partitioning. */
        public String sortedLines() {
            return parts.values().stream().flatMap(b -> new String(b, StandardCharsets.UTF_8).lines()).sorted()
                    .collect(Collectors.joining("\n", "", "\n"));
        }
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
