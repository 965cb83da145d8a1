package io.hadooptipc.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.map.TokenCounterMapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.IntSumReducer;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A MiniMRYarnCluster whose NodeManagers run a chosen {@code mapreduce_shuffle} class,
 * and a word count to run on it. MiniMRYarnCluster writes the stock ShuffleHandler
 * into the aux-service key during init; a configuration that keeps our value of that
 * one key lets the cluster under test run ours.
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

    /** Word count over {@code input} with the given shuffle consumer; the output's part files and the job's counters. */
    public Result wordCount(java.nio.file.Path input, java.nio.file.Path output, Class<?> consumer, int reduces,
                            Map<String, String> settings) throws Exception {
        Configuration conf = new Configuration(cluster.getConfig());
        conf.setClass(MRConfig.SHUFFLE_CONSUMER_PLUGIN, consumer, Object.class);
        conf.setInt(MRJobConfig.MAP_MEMORY_MB, 384);
        conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 384);
        conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 512);
        conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx256m");
        conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx256m");
        settings.forEach(conf::set);
        Job job = Job.getInstance(conf, "wordcount via " + consumer.getSimpleName());
        job.setMapperClass(TokenCounterMapper.class);
        job.setCombinerClass(IntSumReducer.class);
        job.setReducerClass(IntSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(IntWritable.class);
        job.setNumReduceTasks(reduces);
        FileInputFormat.addInputPath(job, new Path(input.toUri()));
        FileOutputFormat.setOutputPath(job, new Path(output.toUri()));
        if (!job.waitForCompletion(true)) {
            throw new AssertionError("job " + job.getJobID() + " failed: " + job.getStatus().getFailureInfo());
        }
        Map<String, byte[]> parts = new TreeMap<>();
        FileSystem fs = FileSystem.getLocal(conf);
        for (FileStatus s : fs.listStatus(new Path(output.toUri()), p -> p.getName().startsWith("part-"))) {
            parts.put(s.getPath().getName(), Files.readAllBytes(java.nio.file.Path.of(s.getPath().toUri())));
        }
        return new Result(parts, job.getCounters());
    }

    @Override
    public void close() {
        cluster.stop();
    }

    /** A job's output part files and counters. */
    public record Result(Map<String, byte[]> parts, Counters counters) {
        public String text() {
            StringBuilder sb = new StringBuilder();
            parts.values().forEach(b -> sb.append(new String(b, StandardCharsets.UTF_8)));
            return sb.toString();
        }
    }

    /** Writes {@code files} text files of random words; returns the word counts they hold. */
    public static Map<String, Integer> writeInput(java.nio.file.Path dir, int files, int linesPerFile) throws IOException {
        Files.createDirectories(dir);
        Random random = new Random(7);
        Map<String, Integer> counts = new TreeMap<>();
        for (int f = 0; f < files; f++) {
            StringBuilder text = new StringBuilder();
            for (int l = 0; l < linesPerFile; l++) {
                for (int w = 0; w < 8; w++) {
                    // Skewed: a few words are everywhere, most are rare, as in text.
                    String word = "w" + Integer.toString((int) Math.pow(random.nextInt(1 << 16), 1.3) % 50_000, 36);
                    counts.merge(word, 1, Integer::sum);
                    text.append(word).append(w == 7 ? '\n' : ' ');
                }
            }
            Files.writeString(dir.resolve("part" + f + ".txt"), text);
        }
        return counts;
    }

    /** Word counts as the job prints them, in key order (one reducer's worth, or all parts merged and sorted). */
    public static String expected(Map<String, Integer> counts) {
        StringBuilder sb = new StringBuilder();
        counts.forEach((w, c) -> sb.append(w).append('\t').append(c).append('\n'));
        return sb.toString();
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
