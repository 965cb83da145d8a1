package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.util.List;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;

/**
 * The stock round robin, recording on each DataNode writer thread that reaches it (after
 * {@link AffinityVolumeChoosingPolicy} bound the thread) the manager's choice and what the
 * kernel reports for the thread.
 */
public class RecordingVolumeChoosingPolicy<V extends FsVolumeSpi> extends RoundRobinVolumeChoosingPolicy<V> {
    record Placement(String thread, OptionalInt chosenCpu, String cpusAllowedList) {
    }

    static final Queue<Placement> PLACEMENTS = new ConcurrentLinkedQueue<>();

    @Override
    public V chooseVolume(List<V> volumes, long replicaSize, String storageId) throws IOException {
        Thread writer = Thread.currentThread();
        OptionalInt cpu = ProcessAffinity.manager(new Configuration(false)).orElseThrow().cpuOf(writer);
        PLACEMENTS.add(new Placement(writer.getName(), cpu, ThreadStatus.cpusAllowedList()));
        return super.chooseVolume(volumes, replicaSize, storageId);
    }
}
