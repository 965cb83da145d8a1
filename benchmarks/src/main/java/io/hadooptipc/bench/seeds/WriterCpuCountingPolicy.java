package io.hadooptipc.bench.seeds;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;

/**
 * The stock round robin, counting the CPUs each DataNode writer thread may run on when it
 * asks for a volume (once per replica, before its data flows). Behind the affinity hook
 * ({@code hadooptipc.hdfs.affinity.volume-choosing-policy}) that is the CPU the hook bound
 * it to; as the DataNode's own policy, whatever the scheduler allows.
 */
public class WriterCpuCountingPolicy<V extends FsVolumeSpi> extends RoundRobinVolumeChoosingPolicy<V> {
    private static final Map<String, LongAdder> WRITERS_BY_CPUS = new ConcurrentHashMap<>();

    @Override
    public V chooseVolume(List<V> volumes, long replicaSize, String storageId) throws IOException {
        WRITERS_BY_CPUS.computeIfAbsent(cpusAllowedList(), cpus -> new LongAdder()).increment();
        return super.chooseVolume(volumes, replicaSize, storageId);
    }

    /** Writer threads counted since the last call, by the CPU list they were allowed. */
    static synchronized Map<String, Long> takeCounts() {
        Map<String, Long> counts = new TreeMap<>();
        WRITERS_BY_CPUS.forEach((cpus, n) -> counts.put(cpus, n.sumThenReset()));
        counts.values().removeIf(n -> n == 0);
        return counts;
    }

    /** The calling thread's CPU list, as the kernel reports it. */
    static String cpusAllowedList() {
        try {
            return cpusAllowedList(Files.readAllLines(Path.of("/proc/thread-self/status")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String cpusAllowedList(List<String> statusLines) {
        return statusLines.stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no Cpus_allowed_list line"));
    }
}
