package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Mapper;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The identity mapper, except that maps from index {@link #OPEN_MAPS} on wait until the file {@link #GATE} exists:
 * a fault drill strikes while map outputs are known to be still due, then opens the gate, instead of racing the
 * job's progress reports. Without {@link #GATE} set it holds nothing back. With {@link #STAGGER_MS}, the first
 * attempt of map i then finishes i times that later, so that reducers fetch map 0's output before map 1's is done;
 * an attempt that re-runs a map does not wait for that.
 */
public class GatedMapper<K, V> extends Mapper<K, V, K, V> {
    /** How many maps (by index) run without waiting; default 0. */
    public static final String OPEN_MAPS = "hadoop-tipc.test.gate.open-maps";
    /** The file whose existence lets the other maps run; unset: no gate. */
    public static final String GATE = "hadoop-tipc.test.gate.path";
    /** How far apart the maps' first attempts finish once through the gate, in index order; default 0. */
    public static final String STAGGER_MS = "hadoop-tipc.test.gate.stagger.ms";
    /** A gate nobody opens (a barrier never reached) fails the map rather than holding the job for good. */
    static final long GIVE_UP_MINUTES = 15;

    @Override
    protected void setup(Context context) throws IOException, InterruptedException {
        Configuration conf = context.getConfiguration();
        String gate = conf.get(GATE);
        int index = context.getTaskAttemptID().getTaskID().getId();
        if (gate != null && index >= conf.getInt(OPEN_MAPS, 0)) {
            Path path = new Path(gate);
            FileSystem fs = path.getFileSystem(conf);
            await(context, "waiting for " + path, () -> fs.exists(path));
        }
        long stagger = conf.getLong(STAGGER_MS, 0);
        if (context.getTaskAttemptID().getId() == 0 && stagger > 0) {
            context.setStatus("finishing " + index + " x " + stagger + " ms after the gate");
            Thread.sleep(index * stagger);
        }
    }

    /** A condition read from the file system. */
    interface Condition {
        boolean holds() throws IOException;
    }

    /** Waits, reporting progress as {@code status}, until {@code open} holds; fails after {@link #GIVE_UP_MINUTES}. */
    static void await(Mapper<?, ?, ?, ?>.Context context, String status, Condition open)
            throws IOException, InterruptedException {
        context.setStatus(status);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(GIVE_UP_MINUTES);
        while (!open.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("gave up " + status + " after " + GIVE_UP_MINUTES + " minutes");
            }
            context.progress();
            Thread.sleep(500);
        }
    }
}
