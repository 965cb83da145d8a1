package io.hadooptipc.bench.common;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JVM's own threads, found by the names the JVM gives them. */
class JvmThreadsCpuTest {
    @Test
    void theJitCompilerAndTheVmThreadAreFoundAndCountForward() throws Exception {
        JvmThreadsCpu before = JvmThreadsCpu.read();
        assertTrue(before.compilerNanos() > 0, "a JVM past start-up has compiled code: " + before);
        System.gc(); // a VM operation, run by the VM thread
        JvmThreadsCpu since = JvmThreadsCpu.read().since(before);
        assertTrue(since.vmThreadNanos() > 0, "the VM thread ran the collection: " + since);
        assertTrue(since.compilerNanos() >= 0, since.toString());
    }
}
