package io.hadooptipc.shuffle.client;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MisdirectionTest {
    private static final String ASKED = "10.0.0.7:13562";

    @Test
    void errorStatusesFromTheServerAskedForAreTheFetchersToHandle() {
        for (int status : new int[] {200, 400, 401, 405, 429, 431, 500}) {
            assertFalse(Misdirection.of(ASKED, status, ASKED), "status " + status);
        }
    }

    @Test
    void anErrorWithoutAServerNameIsStillTheFetchersToHandle() {
        // A stock-speaking server that does not name itself: its status decides, as over HTTP.
        assertFalse(Misdirection.of(ASKED, 429, null));
        assertFalse(Misdirection.of(ASKED, 500, null));
    }

    @Test
    void misdirectedRequestOrAnotherServerIsMisdirection() {
        assertTrue(Misdirection.of(ASKED, 421, ASKED));
        assertTrue(Misdirection.of(ASKED, 421, null));
        assertTrue(Misdirection.of(ASKED, 200, "10.0.0.8:13562"));
        assertTrue(Misdirection.of(ASKED, 429, "10.0.0.8:13562"));
    }
}
