package io.hadooptipc.bench.seeds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MergePassesTest {
    @ParameterizedTest(name = "{0} segments, factor {1}: {2} passes")
    @CsvSource({
        "1, 10, 1", // at most factor segments: only the final merge
        "10, 10, 1",
        "11, 10, 2", // a first merge of 2 leaves 10 for the final one
        "19, 10, 2", // (19 - 1) % 9 == 0: a full first merge of 10 leaves 10
        "20, 10, 3", // 2, then 10, then the final one
        "2, 2, 1",
        "37, 2, 36", // factor 2 takes one pair at a time, down to the final two
        "44, 8, 7", // 2 (43 left), five of 8 (8 left), the final one
    })
    void hadoopMergesJustEnoughFirstForEveryLaterMergeToTakeFactor(int segments, int factor, int passes) {
        assertEquals(passes, MergePasses.hadoop(segments, factor));
    }

    @Test
    void oneSpillIsNotMergedOnTheMapSide() {
        assertEquals(0, MergePasses.mapSide(0, 10));
        assertEquals(0, MergePasses.mapSide(1, 10));
        assertEquals(1, MergePasses.mapSide(2, 10));
        assertEquals(7, MergePasses.mapSide(44, 8));
    }

    @ParameterizedTest(name = "{0} runs, factor {1}: {2} levels")
    @CsvSource({
        "185, 2, 8", // the seed's own example: 8, 3 and 2 levels at fan-out 2, 8 and 16
        "185, 8, 3",
        "185, 16, 2",
        "64, 8, 2",
        "65, 8, 3",
        "1, 8, 0",
    })
    void levelsAreTheCeilingOfTheLogarithm(int runs, int factor, int levels) {
        assertEquals(levels, MergePasses.levels(runs, factor));
    }

    @Test
    void rejectsFactorsBelowTwoAndNoRuns() {
        assertThrows(IllegalArgumentException.class, () -> MergePasses.hadoop(5, 1));
        assertThrows(IllegalArgumentException.class, () -> MergePasses.levels(0, 2));
    }
}
