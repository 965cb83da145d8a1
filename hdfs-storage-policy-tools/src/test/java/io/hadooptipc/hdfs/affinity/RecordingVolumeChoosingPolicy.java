package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
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
    static final class Placement {
        private final String thread;
        private final OptionalInt chosenCpu;
        private final String cpusAllowedList;

        Placement(String thread, OptionalInt chosenCpu, String cpusAllowedList) {
            this.thread = thread;
            this.chosenCpu = chosenCpu;
            this.cpusAllowedList = cpusAllowedList;
        }

        public String thread() {
            return thread;
        }

        public OptionalInt chosenCpu() {
            return chosenCpu;
        }

        public String cpusAllowedList() {
            return cpusAllowedList;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Placement)) {
                return false;
            }
            Placement that = (Placement) o;
            return Objects.equals(thread, that.thread) && Objects.equals(chosenCpu, that.chosenCpu)
                    && Objects.equals(cpusAllowedList, that.cpusAllowedList);
        }

        @Override
        public int hashCode() {
            return Objects.hash(thread, chosenCpu, cpusAllowedList);
        }

        @Override
        public String toString() {
            return "Placement[thread=" + thread + ", chosenCpu=" + chosenCpu + ", cpusAllowedList=" + cpusAllowedList
                    + "]";
        }
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
