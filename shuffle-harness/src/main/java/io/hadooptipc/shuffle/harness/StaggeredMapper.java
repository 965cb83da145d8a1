package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;

import java.io.IOException;

/**
 * The identity mapper, except that the job's maps first meet (each marks its arrival under {@link #ARRIVALS} and
 * waits for all of them) and then finish one after another in index order, {@link #STAGGER_MS} apart: reducers
 * that started with the job see the map outputs complete over time and fetch them in as many requests to the map
 * host, as from maps that finish in waves on a busy cluster. Every map must get a container at once.
 */
public class StaggeredMapper<K, V> extends Mapper<K, V, K, V> {
    /** A directory of the job's file system where each map marks its arrival. */
    public static final String ARRIVALS = "hadoop-tipc.test.stagger.arrivals";
    /** How far apart the maps finish, in index order. */
    public static final String STAGGER_MS = "hadoop-tipc.test.stagger.ms";

    @Override
    protected void setup(Context context) throws IOException, InterruptedException {
        Configuration conf = context.getConfiguration();
        Path arrivals = new Path(conf.get(ARRIVALS));
        FileSystem fs = arrivals.getFileSystem(conf);
        int index = context.getTaskAttemptID().getTaskID().getId();
        int maps = conf.getInt(MRJobConfig.NUM_MAPS, 1);
        fs.create(new Path(arrivals, String.valueOf(index)), true).close();
        GatedMapper.await(context, "waiting for all " + maps + " maps under " + arrivals,
                () -> fs.listStatus(arrivals).length >= maps);
        context.setStatus("finishing " + index + " x " + conf.get(STAGGER_MS) + " ms after the last map arrived");
        Thread.sleep(index * conf.getLong(STAGGER_MS, 0));
    }
}
