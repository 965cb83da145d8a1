package io.hadooptipc.hdfs.affinity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class CpuLoadSamplerTest {
    @Test
    void loadIsTheBusyShareBetweenTwoSamples() {
        CpuLoadSampler sampler = new CpuLoadSampler(Path.of("/nonexistent"));
        assertArrayEquals(new double[] {0, 0}, sampler.update(List.of(
                "cpu  300 0 100 1000 0 0 0 0 0 0",
                "cpu0 100 0 50 500 0 0 0 0 0 0",
                "cpu1 200 0 50 500 0 0 0 0 0 0",
                "intr 12345")));
        // cpu0: 75 busy of 100; cpu1: 10 busy, 40 idle, 50 iowait (waiting on I/O is not busy)
        double[] load = sampler.update(List.of(
                "cpu  385 0 125 1540 50 0 0 0 0 0",
                "cpu0 150 0 70 525 0 0 5 0 0 0",
                "cpu1 210 0 50 540 50 0 0 0 0 0"));
        assertArrayEquals(new double[] {0.75, 0.10}, load, 1e-9);
    }

    @Test
    void readsTheLiveMachine() throws Exception {
        CpuLoadSampler sampler = new CpuLoadSampler(Path.of("/proc"));
        sampler.sample();
        double[] load = sampler.sample();
        assertTrue(load.length >= Runtime.getRuntime().availableProcessors(), "one value per online CPU");
        for (double l : load) {
            assertTrue(l >= 0 && l <= 1, String.valueOf(l));
        }
    }
}
