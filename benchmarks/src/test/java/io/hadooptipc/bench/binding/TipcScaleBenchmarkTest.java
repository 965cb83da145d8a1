package io.hadooptipc.bench.binding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.binding.TipcScaleBenchmark.Metric;
import io.hadooptipc.bench.binding.TipcScaleBenchmark.Sample;
import java.util.List;
import org.junit.jupiter.api.Test;

class TipcScaleBenchmarkTest {
    @Test
    void countsUnicastLinksThatAreUp() {
        String list = """
                broadcast-link: up
                n1:eth0-n2:eth0: up
                n1:eth0-n3:eth0: up
                n1:eth0-n4:eth0: down
                """;
        assertEquals(2, TipcScaleBenchmark.linksUp(list));
    }

    @Test
    void readsAMeminfoFieldInKiB() {
        String meminfo = """
                MemTotal:        6088720 kB
                SReclaimable:      21000 kB
                Slab:              61234 kB
                HugePages_Total:       0
                """;
        assertEquals(61234, TipcScaleBenchmark.meminfoKiB(meminfo, "Slab"));
        assertThrows(IllegalArgumentException.class, () -> TipcScaleBenchmark.meminfoKiB(meminfo, "HugePages_Total"));
        assertThrows(IllegalArgumentException.class, () -> TipcScaleBenchmark.meminfoKiB(meminfo, "Percpu"));
    }

    @Test
    void summaryFitsTheMediansAndExtrapolates() {
        // links up: 1, 3 and 100 ms at N=4 (median 3), 6 ms at N=8 twice: the line 0 + 0.75·N
        List<Sample> samples = List.of(new Sample(4, 1, Metric.LINKS_UP, 1), new Sample(4, 2, Metric.LINKS_UP, 3),
                new Sample(4, 3, Metric.LINKS_UP, 100), new Sample(8, 1, Metric.LINKS_UP, 6),
                new Sample(8, 2, Metric.LINKS_UP, 6));
        int[] sizes = {4, 8};
        assertArrayEquals(new double[]{3, 6}, TipcScaleBenchmark.medians(samples, sizes, Metric.LINKS_UP));
        String summary = TipcScaleBenchmark.summary(samples, sizes, 3, 10);
        assertTrue(summary.contains("| links_up_ms | a + b·N | 0.000 + 0.7500·N (RMS error 0.00) | 750.0 ms | 3750 ms |"),
                summary);
        assertTrue(summary.contains("| links_up_ms | ms | 3.000 ["), summary);
    }
}
