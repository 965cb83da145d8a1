package io.hadooptipc.shuffle.harness;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.harness.ReduceTaskShuffle.MapOutputAt;
import io.hadooptipc.shuffle.harness.ReduceTaskShuffle.Merged;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reduce task's shuffle in the harness, from a stock handler over HTTP/TCP: every record, stock's and ours alike. */
class ReduceTaskShuffleTest {
    private static final int MAPS = 6;
    private static final int PARTITION_BYTES = 2048;

    @Test
    void stockAndOurConsumerMergeEveryRecordOfThePartition(@TempDir Path dir) throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true);
        byte[] password = "reduce-task-shuffle".getBytes(StandardCharsets.UTF_8);
        MapOutputFixture outputs = MapOutputFixture.ofRecords(dir.resolve("nm"), MapOutputFixture.mapIds(MAPS), 2,
                PARTITION_BYTES, password);
        ShuffleHandler handler = outputs.serve(new ShuffleHandler(), new JobConf(), 0);
        try {
            int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
            List<MapOutputAt> maps = new ArrayList<>();
            outputs.mapIds().forEach(id -> maps.add(new MapOutputAt(id, "http://127.0.0.1:" + port)));
            JobConf job = new JobConf();
            job.setMapOutputKeyClass(BytesWritable.class);
            job.setMapOutputValueClass(BytesWritable.class);
            job.setNumReduceTasks(2);
            job.set(TipcShuffleConfig.TRANSPORT, "tcp");

            Merged stock = ReduceTaskShuffle.run(Shuffle.class, job, ShuffleWire.JOB, 1, outputs.key, maps,
                    dir.resolve("stock"));
            Merged ours = ReduceTaskShuffle.run(TipcShuffleConsumer.class, job, ShuffleWire.JOB, 1, outputs.key, maps,
                    dir.resolve("ours"));

            long records = (long) MAPS * (PARTITION_BYTES / MapOutputFixture.RECORD_BYTES);
            assertEquals(records, stock.records());
            assertEquals(MAPS, stock.counter(TaskCounter.SHUFFLED_MAPS));
            assertEquals(records, ours.records());
            assertEquals(stock.checksum(), ours.checksum());
            assertTrue(stock.copyNanos() > 0 && stock.copyCpuNanos() > 0, "the copy phase's end was reported");
        } finally {
            handler.stop();
        }
    }
}
