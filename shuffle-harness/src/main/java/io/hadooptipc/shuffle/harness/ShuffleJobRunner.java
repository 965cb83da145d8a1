package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobHistoryUtils;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/** Runs a {@link ShuffleJob} on a cluster with a chosen shuffle consumer, and reads its output and history. */
public final class ShuffleJobRunner {
    /** Runs {@code job} over {@code input} with the given shuffle consumer; the output's part files and the job's counters. */
    public static ShuffleCluster.Result run(Configuration clusterConf, ShuffleJob job, Path input, Path output,
                                            Class<?> consumer, int reduces, Map<String, String> settings) throws Exception {
        Job mr = submit(clusterConf, job, input, output, consumer, reduces, settings);
        mr.waitForCompletion(false);
        return collect(mr, output);
    }

    /** Submits {@code job} as {@link #run} runs it, and returns at once. */
    public static Job submit(Configuration clusterConf, ShuffleJob job, Path input, Path output,
                             Class<?> consumer, int reduces, Map<String, String> settings) throws Exception {
        Configuration conf = new Configuration(clusterConf);
        conf.setClass(MRConfig.SHUFFLE_CONSUMER_PLUGIN, consumer, Object.class);
        // A cluster whose configuration sizes map containers (to fit so many per machine) keeps its size.
        if (conf.getInt(MRJobConfig.MAP_MEMORY_MB, -1) <= 0) {
            conf.setInt(MRJobConfig.MAP_MEMORY_MB, 384);
        }
        conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 384);
        conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 512);
        conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx256m");
        conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx256m");
        // The client asks every 5 s by default whether the job is done (up to 5 s lost per job); each ask costs the AM.
        conf.setInt(Job.COMPLETION_POLL_INTERVAL_KEY, 2000);
        Job mr = Job.getInstance(conf, job.label() + " via " + consumer.getSimpleName());
        job.configure(mr);
        // After the job's own classes, so that a caller can replace one (a mapper, say).
        settings.forEach(mr.getConfiguration()::set);
        mr.setNumReduceTasks(reduces);
        FileInputFormat.addInputPath(mr, input);
        FileOutputFormat.setOutputPath(mr, output);
        mr.submit();
        return mr;
    }

    /** Once {@code mr} has ended: its output's part files and counters; fails if the job did not succeed. */
    public static ShuffleCluster.Result collect(Job mr, Path output) throws Exception {
        if (!mr.isSuccessful()) {
            throw new AssertionError("job " + mr.getJobID() + " failed: " + mr.getStatus().getFailureInfo());
        }
        Map<String, byte[]> parts = new TreeMap<>();
        FileSystem fs = output.getFileSystem(mr.getConfiguration());
        for (FileStatus s : fs.listStatus(output, p -> p.getName().startsWith("part-"))) {
            try (InputStream in = fs.open(s.getPath())) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                IOUtils.copyBytes(in, bytes, 64 * 1024);
                parts.put(s.getPath().getName(), bytes.toByteArray());
            }
        }
        return new ShuffleCluster.Result(mr.getJobID(), parts, mr.getCounters());
    }

    /**
     * The job's history as its ApplicationMaster recorded it (every attempt's times and
     * counters). The AM writes the file as it shuts down, which can be after the client saw
     * the job succeed, and the history server later moves it: both places are searched.
     */
    public static JobHistoryParser.JobInfo history(Configuration conf, JobID job) throws IOException, InterruptedException {
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

    private ShuffleJobRunner() {
    }
}
