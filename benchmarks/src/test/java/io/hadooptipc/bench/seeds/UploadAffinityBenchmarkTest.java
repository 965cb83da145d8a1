package io.hadooptipc.bench.seeds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class UploadAffinityBenchmarkTest {
    @Test
    void writerCpuCountsFitInOneCsvField() {
        Map<String, Long> counts = new TreeMap<>(Map.of("0", 17L, "1", 15L, "2,4-5", 1L));

        String field = UploadAffinityBenchmark.cpuCounts(counts);

        assertEquals("0: 17; 1: 15; 2+4-5: 1", field);
        assertFalse(field.contains(","));
        assertEquals("none", UploadAffinityBenchmark.cpuCounts(Map.of()));
    }

    @Test
    void bothModesCountWritersAndOnlyTheHookedOneBindsThem() {
        String counting = WriterCpuCountingPolicy.class.getName();
        String policyKey = "dfs.datanode.fsdataset.volume.choosing.policy";

        assertEquals(Map.of(policyKey, counting), UploadAffinityBenchmark.dataNodeSettings(UploadAffinityBenchmark.Mode.STOCK));
        Map<String, String> hook = UploadAffinityBenchmark.dataNodeSettings(UploadAffinityBenchmark.Mode.HOOK);
        assertEquals("io.hadooptipc.hdfs.affinity.AffinityVolumeChoosingPolicy", hook.get(policyKey));
        assertEquals("io.hadooptipc.hdfs.affinity.AffinityServicePlugin", hook.get("dfs.datanode.plugins"));
        assertEquals(counting, hook.get("hadooptipc.hdfs.affinity.volume-choosing-policy"));
    }

    @Test
    void cpusAllowedListComesFromTheStatusLine() {
        List<String> status = List.of("Name:\tDataXceiver", "Cpus_allowed:\t3", "Cpus_allowed_list:\t0-1", "Mems_allowed:\t1");

        assertEquals("0-1", WriterCpuCountingPolicy.cpusAllowedList(status));
        assertThrows(IllegalArgumentException.class, () -> WriterCpuCountingPolicy.cpusAllowedList(List.of("Name:\tx")));
    }
}
