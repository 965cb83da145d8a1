package io.hadooptipc.shuffle.server;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NewHolderWarningsTest {
    static final long SECOND = Duration.ofSeconds(1).toNanos();
    /** Any start: System.nanoTime may be negative. */
    static final long T0 = -5 * SECOND;

    final NewHolderWarnings warnings = new NewHolderWarnings(Duration.ofSeconds(60));

    @Test
    void theFirstHolderIsWarnedOfAtOnceAndNoSummaryWaits() {
        assertTrue(warnings.warnOf(T0));
        assertNull(warnings.untilSummary(T0));
        assertEquals(0, warnings.summarize(T0 + 3600 * SECOND));
    }

    @Test
    void aLoopOfBindsIsOneLineAndThenOneSummaryPerIntervalCountingEveryHolder() {
        assertTrue(warnings.warnOf(T0));
        int lines = 1;
        int summarized = 0;
        // A holder every 10 ms for 10 minutes, the watch summarizing after each, as it does after every event.
        for (long t = T0 + SECOND / 100; t <= T0 + 600 * SECOND; t += SECOND / 100) {
            if (warnings.warnOf(t)) {
                lines++;
            }
            int holders = warnings.summarize(t);
            if (holders > 0) {
                lines++;
                summarized += holders;
            }
        }
        assertEquals(11, lines, "the first holder's line and one summary a minute");
        assertEquals(60_000, summarized, "every later holder counted in a summary");
    }

    @Test
    void aSummaryIsDueAnIntervalAfterTheLastLineWithNoEventToWakeTheWatch() {
        assertTrue(warnings.warnOf(T0));
        assertFalse(warnings.warnOf(T0 + 10 * SECOND));
        assertFalse(warnings.warnOf(T0 + 20 * SECOND));
        assertEquals(Duration.ofSeconds(30), warnings.untilSummary(T0 + 30 * SECOND));
        assertEquals(0, warnings.summarize(T0 + 59 * SECOND));
        assertEquals(Duration.ZERO, warnings.untilSummary(T0 + 61 * SECOND));
        assertEquals(2, warnings.summarize(T0 + 61 * SECOND));
        assertNull(warnings.untilSummary(T0 + 61 * SECOND));
        assertEquals(0, warnings.summarize(T0 + 200 * SECOND));
    }

    @Test
    void aHolderAfterAQuietIntervalGetsALineOfItsOwnAgain() {
        assertTrue(warnings.warnOf(T0));
        assertFalse(warnings.warnOf(T0 + 30 * SECOND));
        assertEquals(1, warnings.summarize(T0 + 60 * SECOND));
        assertFalse(warnings.warnOf(T0 + 100 * SECOND), "within an interval of the summary");
        assertEquals(1, warnings.summarize(T0 + 120 * SECOND));
        assertTrue(warnings.warnOf(T0 + 180 * SECOND), "an interval after the last line, none waiting");
    }
}
