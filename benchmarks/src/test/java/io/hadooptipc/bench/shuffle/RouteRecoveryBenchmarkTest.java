package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.shuffle.RouteRecoveryBenchmark.Cycle;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouteRecoveryBenchmarkTest {
    @Test
    void judgesTheWaitFromThePublicationsReportToTheNextTipcFetch() {
        List<Cycle> cycles = List.of(new Cycle(1, 2_500_000, 3_000, 2_400_000, 4_000, -96_000, 12, 30),
                new Cycle(2, 2_700_000, 5_000, 2_650_000, 6_000, 0, 20, 28));
        String summary = RouteRecoveryBenchmark.summary(cycles);
        assertTrue(summary.contains("| **publication reported → next fetch over TIPC starts (ms)** | 4.00 | 5.00 | 6.00 | 6.00 |"),
                summary);
        assertTrue(summary.contains("| fetches over HTTP/TCP meanwhile | 12.00 | 16.00 | 20.00 | 20.00 |"), summary);
        assertTrue(summary.contains("at most 6.0 ms here: so the goal is met"), summary);
    }

    @Test
    void aSecondFromReportToTipcMissesTheGoal() {
        String summary = RouteRecoveryBenchmark.summary(List.of(new Cycle(1, 2_000_000, 1_000, 1_900_000, 1_000_000,
                900_000, 40, 10)));
        assertTrue(summary.contains("so the goal is **missed**"), summary);
    }
}
