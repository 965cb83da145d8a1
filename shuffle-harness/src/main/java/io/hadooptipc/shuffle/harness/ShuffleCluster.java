package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobID;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where {@link ShuffleComparison} runs its jobs: a MiniMRYarnCluster in this JVM, or a real
 * cluster of Hadoop daemons on several TIPC machines. It says where jobs read and write, and
 * measures what the job's own counters cannot: the NodeManagers' shuffle-serving CPU and the
 * TIPC traffic between machines.
 */
public interface ShuffleCluster extends AutoCloseable {
    /** Where a cluster on HDFS stages the jobs' inputs ({@link #stage}) and has them write their outputs. */
    Path HDFS_INPUTS = new Path("/bench/in");
    Path HDFS_OUTPUTS = new Path("/bench/out");

    /** The client configuration jobs are submitted with. */
    Configuration config();

    /** Makes a job input written locally readable by the cluster's tasks; where they read it. Staged again, it replaces the first copy. */
    Path stageInput(java.nio.file.Path local) throws IOException;

    /** Where a job writes its output named {@code name}. */
    Path outputPath(String name);

    /** CPU time so far of every NodeManager thread that serves map outputs (stock Netty, ours, readahead). */
    long servingCpuNanos() throws IOException;

    /** Bytes of TIPC frames that crossed between machines so far, from the kernel; -1 on a single machine. */
    long crossMachineTipcBytes() throws IOException;

    /**
     * Instructions each machine's emulated CPUs executed so far, machine 1 first ({@code tipc-vm --count-instructions}):
     * kernel and user, every process. Empty where they are not counted.
     */
    long[] guestInstructions() throws IOException;

    /**
     * Fails if a job's tasks ran where its figures would not mean what {@link #description()} says, such as maps
     * beside their reducers on a cluster that promises the shuffle crosses machines. {@code mapHosts} and
     * {@code reduceHosts}: where the job's successful attempts ran. A single-machine cluster promises nothing.
     */
    default void checkPlacement(String job, Set<String> mapHosts, Set<String> reduceHosts) {
    }

    /** One sentence for a summary: what the cluster is and where TIPC runs in it. */
    String description();

    @Override
    void close() throws IOException;

    /**
     * Copies the local input folder {@code local} to {@code root}/(the name of its parent) on {@code fs}, replacing what
     * an earlier staging of the same input left there: a folder copied onto an existing one lands inside it, and a job
     * would then read the nested copy as one more input file. Where it landed, qualified.
     */
    static Path stage(FileSystem fs, java.nio.file.Path local, Path root) throws IOException {
        Path dst = new Path(root, local.getParent().getFileName().toString());
        fs.delete(dst, true);
        fs.copyFromLocalFile(false, true, new Path(local.toUri()), dst);
        return fs.makeQualified(dst);
    }

    /** A job's id, output part files and counters. */
    static final class Result {
        private final JobID id;
        private final Map<String, byte[]> parts;
        private final Counters counters;

        public Result(JobID id, Map<String, byte[]> parts, Counters counters) {
            this.id = id;
            this.parts = parts;
            this.counters = counters;
        }

        /** Every line of every part file, sorted: what a job's output must equal, whatever its partitioning. */
        public String sortedLines() {
            return parts.values().stream().flatMap(b -> new String(b, StandardCharsets.UTF_8).lines()).sorted()
                    .collect(Collectors.joining("\n", "", "\n"));
        }

        public JobID id() {
            return id;
        }

        public Map<String, byte[]> parts() {
            return parts;
        }

        public Counters counters() {
            return counters;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Result)) {
                return false;
            }
            Result that = (Result) o;
            return Objects.equals(id, that.id) && Objects.equals(parts, that.parts)
                    && Objects.equals(counters, that.counters);
        }

        @Override
        public int hashCode() {
            return Objects.hash(id, parts, counters);
        }

        @Override
        public String toString() {
            return "Result[id=" + id + ", parts=" + parts + ", counters=" + counters + "]";
        }
    }
}
