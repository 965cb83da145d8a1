package io.hadooptipc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MergePassesTest {
    @Test
    void atMostFactorSegmentsTakeOnlyTheFinalMerge() {
        assertEquals(1, MergePasses.hadoop(1, 10));
        assertEquals(1, MergePasses.hadoop(10, 10));
    }

    @Test
    void theFirstMergeTakesJustEnoughSegmentsForEveryLaterOneToTakeFactor() {
        // 11 segments, factor 10: merge 2 into 1, leaving 10 for the final merge.
        assertEquals(2, MergePasses.hadoop(11, 10));
        // 19: (19 - 1) % 9 == 0, so a full merge of 10 leaves 10.
        assertEquals(2, MergePasses.hadoop(19, 10));
        // 20: merge 2 (19 left), then 10 (10 left), then the final one.
        assertEquals(3, MergePasses.hadoop(20, 10));
    }

    @Test
    void factorTwoMergesOnePairAtATime() {
        // Each merge removes one segment, down to two for the final merge.
        assertEquals(36, MergePasses.hadoop(37, 2));
        assertEquals(1, MergePasses.hadoop(2, 2));
    }

    @Test
    void oneSpillIsNotMergedOnTheMapSide() {
        assertEquals(0, MergePasses.mapSide(1, 10));
        assertEquals(0, MergePasses.mapSide(0, 10));
        assertEquals(1, MergePasses.mapSide(2, 10));
        assertEquals(7, MergePasses.mapSide(44, 8));
    }

    @Test
    void levelsAreTheCeilingOfTheLogarithm() {
        // The seed's own example: 185 runs take 8, 3 and 2 levels at fan-out 2, 8 and 16.
        assertEquals(8, MergePasses.levels(185, 2));
        assertEquals(3, MergePasses.levels(185, 8));
        assertEquals(2, MergePasses.levels(185, 16));
        assertEquals(2, MergePasses.levels(64, 8));
        assertEquals(3, MergePasses.levels(65, 8));
        assertEquals(0, MergePasses.levels(1, 8));
    }

    @Test
    void rejectsFactorsBelowTwo() {
        assertThrows(IllegalArgumentException.class, () -> MergePasses.hadoop(5, 1));
        assertThrows(IllegalArgumentException.class, () -> MergePasses.levels(0, 2));
    }
}
