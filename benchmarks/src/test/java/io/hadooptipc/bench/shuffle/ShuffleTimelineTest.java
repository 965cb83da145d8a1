package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShuffleTimelineTest {
    private static final String R = "org.apache.hadoop.mapreduce.task.reduce.";

    /** A reducer's syslog.shuffle as Hadoop 3.5 writes it, the consumer starting at 12:00:00,000. */
    private static List<String> shuffleLog() {
        return List.of(
                at(0, "[main] " + R + "MergeManagerImpl: MergerManager: memoryLimit=181665792, ioSortFactor=10"),
                at(40, "[EventFetcher for fetching Map Completion Events] " + R
                        + "EventFetcher: attempt_1_0003_r_000000_0 Thread started: EventFetcher for fetching Map Completion Events"),
                at(150, "[EventFetcher for fetching Map Completion Events] " + R
                        + "EventFetcher: attempt_1_0003_r_000000_0: Got 2 new map-outputs"),
                at(550, "[fetcher#1] " + R + "Fetcher: fetcher#1 about to shuffle output of map attempt_1_0003_m_000001_0"
                        + " decomp: 4222 len: 4226 to MEMORY"),
                at(560, "[fetcher#1] " + R + "InMemoryMapOutput: Read 4222 bytes from map-output"),
                at(900, "[fetcher#1] " + R + "Fetcher: fetcher#1 about to shuffle output of map attempt_1_0003_m_000000_0"
                        + " decomp: 4222 len: 4226 to MEMORY"),
                at(1000, "[fetcher#1] " + R + "ShuffleSchedulerImpl: m2:13562 freed by fetcher#1 in 450ms"),
                at(1300, "[fetcher#2] " + R + "ShuffleSchedulerImpl: m3:13562 freed by fetcher#2 in 700ms"),
                at(1350, "[main] " + R + "MergeManagerImpl: finalMerge called with 2 in-memory map-outputs"),
                at(1800, "[main] org.apache.hadoop.mapred.Merger: Down to the last merge-pass, with 1 segments left"));
    }

    private static String at(int millis, String rest) {
        return String.format("2026-11-27 12:00:%02d,%03d INFO %s", millis / 1000, millis % 1000, rest);
    }

    private static List<String> taskLog(boolean tipc) {
        List<String> log = new ArrayList<>(List.of(
                "2026-11-27 12:00:09,000 INFO [main] org.apache.hadoop.mapred.Task: Final Counters for attempt_1_0003_r_000000_0: Counters: 41",
                "\tMap-Reduce Framework", "\t\tShuffled Maps =2", "\t\tFailed Shuffles=0"));
        if (tipc) {
            log.addAll(List.of("\tTIPC Shuffle", "\t\tBytes fetched via TIPC=8452", "\t\tMap outputs fetched via TIPC=2"));
        }
        return log;
    }

    @Test
    void stagesAreTheIntervalsBetweenTheLogsLandmarks() {
        ShuffleTimeline.Reducer r = ShuffleTimeline.read("application_1_0003", "container_1_0003_01_000004",
                shuffleLog(), taskLog(true));
        List<Long> stages = ShuffleTimeline.STAGES.stream().map(s -> s.millis().applyAsLong(r)).toList();
        // events at 150, first fetch at 550, the last host freed at 1300, final merge at 1350, last line at 1800
        assertEquals(List.of(150L, 400L, 750L, 50L, 450L, 1800L), stages);
        assertTrue(r.ours());
        assertEquals(2, r.maps());
    }

    @Test
    void aReducerWithoutTipcCountersIsStocks() {
        assertFalse(ShuffleTimeline.read("a", "c", shuffleLog(), taskLog(false)).ours());
    }

    @Test
    void aLogWithoutAStageLineIsAnErrorNamingIt() {
        List<String> noFinalMerge = shuffleLog().stream().filter(l -> !l.contains("finalMerge")).toList();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShuffleTimeline.read("a", "container_9", noFinalMerge, taskLog(true)));
        assertEquals("container_9: no \"finalMerge called\" line in its syslog.shuffle", e.getMessage());
        IllegalArgumentException noCounters = assertThrows(IllegalArgumentException.class,
                () -> ShuffleTimeline.read("a", "container_9", shuffleLog(), List.of()));
        assertTrue(noCounters.getMessage().contains("Shuffled Maps"), noCounters.getMessage());
    }

    @Test
    void writesPerReducerRowsAndMediansPerSide(@TempDir Path dir) throws Exception {
        write(dir.resolve("m1/containers/application_1_0003/container_1_0003_01_000004"), shuffleLog(), taskLog(false));
        write(dir.resolve("m1/containers/application_1_0004/container_1_0004_01_000004"), stretched(2), taskLog(true));
        write(dir.resolve("m1/containers/application_1_0004/container_1_0004_01_000005"), stretched(4), taskLog(true));
        Path map = dir.resolve("m2/containers/application_1_0004/container_1_0004_01_000002");
        Files.createDirectories(map);
        Files.write(map.resolve("syslog"), List.of("a map's log"));
        List<ShuffleTimeline.Reducer> reducers = ShuffleTimeline.readAll(dir);
        assertEquals(3, reducers.size(), "only reduce containers have a syslog.shuffle: " + reducers);

        String table = ShuffleTimeline.table(2, reducers);
        // stock's phase 1800 ms; ours 3600 and 7200 ms, median 5400
        assertTrue(table.contains("| shuffle phase (consumer start to last line) | 1800 | 5400 | 3.00 |"), table);
        assertTrue(table.contains("(1 stock, 2 ours)"), table);
        String jobs = ShuffleTimeline.jobs(reducers);
        assertTrue(jobs.contains("| application_1_0003 | stock | 2 | 1 | 150 | 400 | 750 | 50 | 450 | 1800 |"), jobs);
        assertTrue(jobs.contains("| application_1_0004 | ours | 2 | 2 | 450 | 1200 | 2250 | 150 | 1350 | 5400 |"), jobs);
        String csv = ShuffleTimeline.csv(reducers);
        assertEquals(4, csv.lines().count(), csv);
        assertTrue(csv.contains("application_1_0004,container_1_0004_01_000005,ours,2,600,1600,3000,200,1800,7200"), csv);
    }

    /** The same log with every interval multiplied by {@code factor}. */
    private static List<String> stretched(int factor) {
        return shuffleLog().stream().map(l -> {
            long t = ShuffleTimeline.instant(l) - ShuffleTimeline.instant(at(0, ""));
            return at((int) t * factor, l.substring(29));
        }).toList();
    }

    private static void write(Path container, List<String> shuffleLog, List<String> taskLog) throws Exception {
        Files.createDirectories(container);
        Files.write(container.resolve("syslog.shuffle"), shuffleLog);
        Files.write(container.resolve("syslog"), taskLog);
    }
}
