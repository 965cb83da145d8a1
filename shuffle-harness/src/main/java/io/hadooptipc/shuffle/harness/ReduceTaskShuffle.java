package io.hadooptipc.shuffle.harness;

import io.hadooptipc.testbed.CountingReporter;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalDirAllocator;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.mapred.AMFeedback;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapred.MapTaskCompletionEventsUpdate;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.ReduceTask;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.util.Progress;
import org.apache.hadoop.util.ReflectionUtils;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;
import javax.crypto.SecretKey;

/**
 * One reduce task's shuffle outside a task JVM: a {@link ShuffleConsumerPlugin} (stock's {@code Shuffle} or ours)
 * made, initialized and run as {@code ReduceTask.run} does, its merged input read to the end. The task's
 * ApplicationMaster is an umbilical in this JVM that hands out every map's completion event at the first ask, as an
 * ApplicationMaster does once the maps have finished; it answers nothing else a shuffle does not ask.
 */
public final class ReduceTaskShuffle {
    /** A finished map attempt and its NodeManager's shuffle address, as its completion event names them. */
    public static final class MapOutputAt {
        private final String mapAttemptId;
        private final String trackerHttp;

        public MapOutputAt(String mapAttemptId, String trackerHttp) {
            this.mapAttemptId = mapAttemptId;
            this.trackerHttp = trackerHttp;
        }

        public String mapAttemptId() {
            return mapAttemptId;
        }

        public String trackerHttp() {
            return trackerHttp;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof MapOutputAt)) {
                return false;
            }
            MapOutputAt that = (MapOutputAt) o;
            return Objects.equals(mapAttemptId, that.mapAttemptId) && Objects.equals(trackerHttp, that.trackerHttp);
        }

        @Override
        public int hashCode() {
            return Objects.hash(mapAttemptId, trackerHttp);
        }

        @Override
        public String toString() {
            return "MapOutputAt[mapAttemptId=" + mapAttemptId + ", trackerHttp=" + trackerHttp + "]";
        }
    }

    /**
     * The copy phase's wall time and this JVM's CPU time, from {@code init} to the task's report that copying is done
     * (before the final merge); the merged input's records and a CRC32C over their keys and values in merge order
     * (equal for two shuffles of the same partitions, whatever carried them); the task's counters (stock's and any
     * plugin's).
     */
    public static final class Merged {
        private final long copyNanos;
        private final long copyCpuNanos;
        private final long records;
        private final long checksum;
        private final Counters counters;

        public Merged(long copyNanos, long copyCpuNanos, long records, long checksum, Counters counters) {
            this.copyNanos = copyNanos;
            this.copyCpuNanos = copyCpuNanos;
            this.records = records;
            this.checksum = checksum;
            this.counters = counters;
        }

        public long counter(Enum<?> counter) {
            return counters.findCounter(counter).getValue();
        }

        public long copyNanos() {
            return copyNanos;
        }

        public long copyCpuNanos() {
            return copyCpuNanos;
        }

        public long records() {
            return records;
        }

        public long checksum() {
            return checksum;
        }

        public Counters counters() {
            return counters;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Merged)) {
                return false;
            }
            Merged that = (Merged) o;
            return copyNanos == that.copyNanos && copyCpuNanos == that.copyCpuNanos && records == that.records
                    && checksum == that.checksum && Objects.equals(counters, that.counters);
        }

        @Override
        public int hashCode() {
            return Objects.hash(copyNanos, copyCpuNanos, records, checksum, counters);
        }

        @Override
        public String toString() {
            return "Merged[copyNanos=" + copyNanos + ", copyCpuNanos=" + copyCpuNanos + ", records=" + records
                    + ", checksum=" + checksum + ", counters=" + counters + "]";
        }
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ReduceTaskShuffle() {
    }

    /**
     * Shuffles partition {@code reduce} of {@code maps} with {@code plugin}, the job's settings in {@code job} (its map
     * output classes among them), and merges it with the task's local directory {@code localDir}.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Merged run(Class<? extends ShuffleConsumerPlugin> plugin, JobConf job, String jobId, int reduce,
                             SecretKey shuffleSecret, List<MapOutputAt> maps, Path localDir) throws Exception {
        JobConf conf = new JobConf(job);
        conf.setNumMapTasks(maps.size());
        conf.set(MRConfig.LOCAL_DIR, localDir.toString());
        TaskAttemptID reduceId = TaskAttemptID.forName(String.format("attempt_%s_r_%06d_0", jobId.substring(4), reduce));
        ReduceTask task = new ReduceTask("job.xml", reduceId, reduce, maps.size(), 1);
        task.setConf(conf);
        task.setShuffleSecret(shuffleSecret);
        CountingReporter reporter = new CountingReporter();
        Counters c = reporter.counters;
        Progress phases = new Progress();
        Progress copy = phases.addPhase("copy");
        Progress sort = phases.addPhase("sort");
        MROutputFiles mapOutputFile = new MROutputFiles();
        mapOutputFile.setConf(conf);
        FinishedMaps am = new FinishedMaps(completionEvents(maps));
        TaskUmbilicalProtocol umbilical = (TaskUmbilicalProtocol) Proxy.newProxyInstance(
                TaskUmbilicalProtocol.class.getClassLoader(), new Class<?>[]{TaskUmbilicalProtocol.class}, am);
        long start = System.nanoTime();
        long startCpu = OS.getProcessCpuTime();
        ShuffleConsumerPlugin consumer = ReflectionUtils.newInstance(plugin, conf);
        consumer.init(new ShuffleConsumerPlugin.Context(reduceId, conf, FileSystem.getLocal(conf), umbilical,
                new LocalDirAllocator(MRConfig.LOCAL_DIR), reporter, null, null, null,
                c.findCounter(TaskCounter.SPILLED_RECORDS), c.findCounter(TaskCounter.COMBINE_INPUT_RECORDS),
                c.findCounter(TaskCounter.SHUFFLED_MAPS), c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES),
                c.findCounter(TaskCounter.FAILED_SHUFFLE), c.findCounter(TaskCounter.MERGED_MAP_OUTPUTS),
                statusOf(task), copy, sort, task, mapOutputFile, null));
        try {
            RawKeyValueIterator merged = consumer.run();
            long records = 0;
            CRC32C crc = new CRC32C();
            try {
                while (merged.next()) {
                    update(crc, merged.getKey());
                    update(crc, merged.getValue());
                    records++;
                }
            } finally {
                merged.close();
            }
            if (am.copiedAt == 0) {
                throw new IllegalStateException(plugin.getSimpleName() + " returned its merged input without reporting"
                        + " the end of its copy phase");
            }
            return new Merged(am.copiedAt - start, am.copiedCpuAt - startCpu, records, crc.getValue(), c);
        } finally {
            consumer.close();
        }
    }

    private static void update(CRC32C crc, DataInputBuffer b) {
        crc.update(b.getData(), b.getPosition(), b.getLength() - b.getPosition());
    }

    private static TaskCompletionEvent[] completionEvents(List<MapOutputAt> maps) {
        TaskCompletionEvent[] events = new TaskCompletionEvent[maps.size()];
        for (int i = 0; i < events.length; i++) {
            TaskAttemptID map = TaskAttemptID.forName(maps.get(i).mapAttemptId());
            events[i] = new TaskCompletionEvent(i, map, map.getTaskID().getId(), true,
                    TaskCompletionEvent.Status.SUCCEEDED, maps.get(i).trackerHttp());
        }
        return events;
    }

    /**
     * The status a task reports through its umbilical, which {@code ReduceTask.run} hands its shuffle: a
     * package-private field of {@code Task}, read as stock's own tests in that package read it.
     */
    private static TaskStatus statusOf(ReduceTask task) throws ReflectiveOperationException {
        Field status = org.apache.hadoop.mapred.Task.class.getDeclaredField("taskStatus");
        status.setAccessible(true);
        return (TaskStatus) status.get(task);
    }

    /**
     * The ApplicationMaster's side of the umbilical once every map has finished: completion events from the index
     * asked for, and status updates of a task it knows, noting when the task first reports its sort phase (its copy
     * phase done). A shuffle that asks anything else fails, naming it.
     */
    private static final class FinishedMaps implements InvocationHandler {
        private final TaskCompletionEvent[] events;
        volatile long copiedAt;
        volatile long copiedCpuAt;

        FinishedMaps(TaskCompletionEvent[] events) {
            this.events = events;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            switch (method.getName()) {
                case "getMapCompletionEvents":
                    int from = Math.min((Integer) args[1], events.length);
                    int to = Math.min(events.length, from + (Integer) args[2]);
                    return new MapTaskCompletionEventsUpdate(Arrays.copyOfRange(events, from, to), false);
                case "statusUpdate":
                    if (copiedAt == 0 && ((TaskStatus) args[1]).getPhase() == TaskStatus.Phase.SORT) {
                        copiedAt = System.nanoTime();
                        copiedCpuAt = OS.getProcessCpuTime();
                    }
                    AMFeedback feedback = new AMFeedback();
                    feedback.setTaskFound(true);
                    return feedback;
                case "getProtocolVersion":
                    return TaskUmbilicalProtocol.versionID;
                case "toString":
                    return "the umbilical of a reduce task whose maps have finished";
                default:
                    throw new UnsupportedOperationException("a reduce task's shuffle called umbilical."
                            + method.getName() + Arrays.toString(args) + ", which this harness does not answer");
            }
        }
    }
}
