package io.hadooptipc.hdfs.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hadooptipc.hdfs.Settings;

class ProcessAffinityTest {
    private static Configuration defaults() {
        return Settings.withDefaults(new Configuration(false));
    }

    @Test
    void aWriterThreadIsBoundToTheCpuTheManagerChose() throws Exception {
        CoreAffinityManager m = ProcessAffinity.create(defaults(), Path.of("/sys"), Path.of("/proc")).orElseThrow();
        String[] seen = CompletableFuture.supplyAsync(() -> {
            try {
                String before = ThreadStatus.cpusAllowedList();
                CoreAffinityManager.Choice c = m.pinCurrentThread();
                return new String[] {before, String.valueOf(c.cpu()), ThreadStatus.cpusAllowedList()};
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r, "writer").start()).get();
        assertEquals(seen[1], seen[2], "Cpus_allowed_list after binding (it was " + seen[0] + ")");
    }

    @Test
    void unreadableTopologyLeavesAffinityOff(@TempDir Path empty) {
        Optional<CoreAffinityManager> m = ProcessAffinity.create(defaults(), empty.resolve("sys"), empty.resolve("proc"));
        assertTrue(m.isEmpty());
    }

    @Test
    void theKeySwitchesItOff() {
        Configuration conf = defaults();
        conf.setBoolean(AffinitySettings.ENABLED, false);
        assertTrue(ProcessAffinity.create(conf, Path.of("/sys"), Path.of("/proc")).isEmpty());
    }
}
