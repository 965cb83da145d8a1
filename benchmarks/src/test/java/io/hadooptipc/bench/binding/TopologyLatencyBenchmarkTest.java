package io.hadooptipc.bench.binding;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.binding.TopologyLatencyBenchmark.Cycle;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyLatencyBenchmarkTest {
    @Test
    void boundsEachReportsDelayByTheRequestAndTheAnswer() {
        List<Cycle> cycles = List.of(new Cycle(1, 4_000, 5_000, 3_000, 9_000, 200),
                new Cycle(2, 6_000, 5_500, 2_000, 7_000, 400));
        String summary = TopologyLatencyBenchmark.summary(cycles);
        // upper bounds 5.0 and 5.5 ms; lower bounds 1.0 ms and 0 (the report came before the answer)
        assertTrue(summary.contains("| published: report - request (ms, upper bound) | 5.00 | 5.25 | 5.50 | 5.50 |"), summary);
        assertTrue(summary.contains("| published: report - answer (ms, lower bound) | 0.00 | 0.50 | 1.00 | 1.00 |"), summary);
        assertTrue(summary.contains("| withdrawn: report - answer (ms, lower bound) | 5.00 | 5.50 | 6.00 | 6.00 |"), summary);
        assertTrue(summary.contains("Worst upper bound here: 5.5 ms, so the goal is met."), summary);
    }

    @Test
    void aReportLaterThanASecondMissesTheGoal() {
        String summary = TopologyLatencyBenchmark.summary(List.of(new Cycle(1, 1_000, 1_200_000, 1_000, 2_000, 100)));
        assertTrue(summary.contains("so the goal is **missed**"), summary);
    }
}
