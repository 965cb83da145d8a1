package io.hadooptipc.bench.seeds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class MergeLogTest {
    private static final String MAP_THREAD = MergeLog.MAP_THREAD_PREFIX + " #0";
    private static final String SPILL_THREAD = "SpillThread";
    private static final String REDUCE_THREAD = "pool-7-thread-1";

    private final MergeLog log = new MergeLog();

    @Test
    void countsSpillsPerMapAndMergesBySide() {
        // Two maps: 3 spills (two by the spill thread, the last on flush) merged at factor 2, then 1 spill.
        log.record(SPILL_THREAD, "Finished spill 0", 1);
        log.record(SPILL_THREAD, "Finished spill 1", 2);
        log.record(MAP_THREAD, "Finished spill 2", 3);
        log.record(MAP_THREAD, "Merging 3 sorted segments", 4);
        log.record(MAP_THREAD, "Merging 2 intermediate segments out of a total of 3", 5);
        log.record(MAP_THREAD, "Down to the last merge-pass, with 2 segments left of total size: 1000 bytes", 6);
        log.record(MAP_THREAD, "Finished spill 0", 7);
        log.record("Thread-12", "map task executor complete.", 8);
        log.record(REDUCE_THREAD, "Merging 2 sorted segments", 9);
        log.record(REDUCE_THREAD, "Down to the last merge-pass, with 2 segments left of total size: 2000 bytes", 10);
        log.record(REDUCE_THREAD, "Merged 2 segments, 2000 bytes to disk to satisfy reduce memory limit", 11);

        MergeLog.Counts counts = log.take();

        assertEquals(List.of(3, 1), counts.spillsPerMap());
        assertEquals(4, counts.spills());
        assertEquals(2, counts.mapMergePasses());
        assertEquals(1, counts.reduceMergePasses());
        assertEquals(8, counts.mapPhaseEndMillis());
        assertEquals(2, counts.modelMapMergePasses(2));
    }

    @Test
    void takeStartsAfresh() {
        log.record(MAP_THREAD, "Finished spill 0", 1);
        log.record("Thread-3", "map task executor complete.", 2);
        log.take();

        MergeLog.Counts counts = log.take();

        assertEquals(List.of(), counts.spillsPerMap());
        assertEquals(0, counts.mapMergePasses());
        assertEquals(-1, counts.mapPhaseEndMillis());
    }

    @Test
    void ignoresOtherLines() {
        log.record(MAP_THREAD, "Spilling map output", 1);
        log.record("Thread-3", "reduce task executor complete.", 2);
        log.record(MAP_THREAD, "Merging 4 sorted segments", 3);

        MergeLog.Counts counts = log.take();

        assertEquals(0, counts.spills());
        assertEquals(0, counts.mapMergePasses());
        assertEquals(-1, counts.mapPhaseEndMillis());
    }
}
