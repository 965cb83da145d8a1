package io.hadooptipc.bench.shuffle;

import static io.hadooptipc.bench.shuffle.SideBySideTest.HEAVY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class JobArgsTest {
    @Test
    void parsesJobSpecs() {
        assertEquals(HEAVY, JobArgs.spec("shuffle-heavy:2:8:500"));
        assertThrows(IllegalArgumentException.class, () -> JobArgs.spec("shuffle-heavy:2:8"));
        assertThrows(IllegalArgumentException.class, () -> JobArgs.spec("terasort:2:8:500"));
    }
}
