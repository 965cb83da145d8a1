package io.hadooptipc.shuffle.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class TestbedClusterTest {
    @Test
    void mapContainersFillAMachineWithAsManyMapsAsAsked() {
        assertEquals(1536, TestbedCluster.mapContainerMb(3072, 2, 128));
        assertEquals(1024, TestbedCluster.mapContainerMb(3072, 3, 128));
        // 1,500 MB would be rounded up to 1,536 by the scheduler, and only one would fit in 3,000.
        assertEquals(1408, TestbedCluster.mapContainerMb(3000, 2, 128));
        assertThrows(IllegalArgumentException.class, () -> TestbedCluster.mapContainerMb(256, 3, 128));
    }

    @Test
    void mapsBesideTheirReducersAreRefused() {
        TestbedCluster.requireMapsApart("job", Set.of("m2", "m3"), Set.of("m1"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TestbedCluster.requireMapsApart("job", Set.of("m1", "m2"), Set.of("m1")));
        assertTrue(e.getMessage().startsWith("job ran maps on [m1], where its reducers ran too"), e.getMessage());
    }
}
