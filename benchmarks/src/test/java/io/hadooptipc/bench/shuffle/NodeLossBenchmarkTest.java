package io.hadooptipc.bench.shuffle;

import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeLossBenchmarkTest {
    private static final String JOB = "1765123456789_0007";

    private static long at(String time) {
        return LocalDateTime.parse("2026-12-07T" + time).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
    }

    @Test
    void readsTheFirstDecisionAndReRunsFromTheApplicationMastersLog() {
        List<String> am = List.of(
                "2026-12-07 16:00:01,000 INFO [AsyncDispatcher event handler] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_m_000001_0 TaskAttempt Transitioned from NEW to UNASSIGNED",
                "2026-12-07 16:00:40,250 INFO [AsyncDispatcher event handler] impl.JobImpl: Too many fetch-failures for"
                        + " output of task attempt: attempt_" + JOB + "_m_000001_0 ... raising fetch failure to map",
                "2026-12-07 16:00:40,300 INFO [AsyncDispatcher event handler] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_m_000001_1 TaskAttempt Transitioned from NEW to UNASSIGNED",
                "2026-12-07 16:00:41,000 INFO [AsyncDispatcher event handler] impl.JobImpl: Too many fetch-failures for"
                        + " output of task attempt: attempt_" + JOB + "_m_000000_0 ... raising fetch failure to map",
                "2026-12-07 16:00:41,100 INFO [AsyncDispatcher event handler] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_m_000000_1 TaskAttempt Transitioned from NEW to UNASSIGNED",
                "2026-12-07 16:00:52,000 INFO [AsyncDispatcher event handler] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_m_000001_1 TaskAttempt Transitioned from ASSIGNED to RUNNING",
                "2026-12-07 16:01:30,000 INFO [AsyncDispatcher event handler] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_r_000002_1 TaskAttempt Transitioned from NEW to UNASSIGNED");
        List<String> reducers = List.of(
                "2026-12-07 16:00:30,000 INFO [fetcher#1] reduce.ShuffleSchedulerImpl: Reporting fetch failure for attempt_"
                        + JOB + "_m_000001_0 to MRAppMaster.",
                "2026-12-07 16:00:31,000 INFO [fetcher#2] reduce.ShuffleSchedulerImpl: Reporting fetch failure for attempt_"
                        + JOB + "_m_000001_0 to MRAppMaster.");
        NodeLossBenchmark.Logs logs = NodeLossBenchmark.logs(am, reducers);
        assertEquals(at("16:00:40.250"), logs.firstDecision().getAsLong());
        assertEquals(at("16:00:40.300"), logs.firstRerun().getAsLong());
        assertEquals(at("16:00:52.000"), logs.firstRerunRunning().getAsLong());
        assertEquals(2, logs.mapsRerun());
        assertEquals(1, logs.reducesRerun());
        assertEquals(2, logs.byFetchFailures());
        assertEquals(0, logs.byUnusableNode());
        assertEquals(2, logs.stockReports());
        assertEquals(0, logs.ourReports());
    }

    @Test
    void aJobWithoutFaultsHasNoDecisionAndNoReRun() {
        NodeLossBenchmark.Logs logs = NodeLossBenchmark.logs(List.of(
                "2026-12-07 16:00:01,000 INFO [x] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_m_000000_0 TaskAttempt Transitioned from NEW to UNASSIGNED",
                "2026-12-07 16:00:09,000 INFO [x] impl.TaskAttemptImpl: attempt_" + JOB
                        + "_m_000000_0 TaskAttempt Transitioned from ASSIGNED to RUNNING"), List.of());
        assertTrue(logs.firstDecision().isEmpty());
        assertTrue(logs.firstRerun().isEmpty());
        assertTrue(logs.firstRerunRunning().isEmpty());
        assertEquals(0, logs.mapsRerun());
    }

    @Test
    void aMapsPlacementIsReadFromTheApplicationMastersAndTheHistoryServersEvents() {
        assertTrue(NodeLossBenchmark.placement(0, "http://m2:13562").isEmpty());
        assertTrue(NodeLossBenchmark.placement(1, "m2:45454").isEmpty(), "the history server's NodeManager address");
        assertEquals("map 1 ran on m3:45454, not m2", NodeLossBenchmark.placement(1, "m3:45454").orElseThrow());
        assertTrue(NodeLossBenchmark.placement(0, "http://m22:13562").isPresent());
    }

    @Test
    void aTrialNamesAnArmAndAFault() {
        NodeLossBenchmark.Trial trial = NodeLossBenchmark.Trial.parse("stock-tuned:short-blackout");
        assertEquals(NodeLossBenchmark.Arm.STOCK_TUNED, trial.arm());
        assertEquals(NodeLossBenchmark.Fault.SHORT_BLACKOUT, trial.fault());
        assertEquals("stock-tuned:short-blackout", trial.label());
    }
}
