package io.hadooptipc.testbed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the totals that tipc-vm --count-instructions writes, one file per guest. */
class GuestInstructionsTest {
    @TempDir
    Path totals;

    @Test
    void readsTheTotalOfTheGuestAsked() throws IOException {
        Files.writeString(totals.resolve("1"), "1234567890123\n");
        Files.writeString(totals.resolve("2"), "42\n");
        assertEquals(1234567890123L, GuestInstructions.read(totals, 1));
        assertEquals(42L, GuestInstructions.read(totals, 2));
    }

    @Test
    void readsEveryMachinesTotalMachineOneFirst() throws IOException {
        Files.writeString(totals.resolve("1"), "1234567890123\n");
        Files.writeString(totals.resolve("2"), "42\n");
        assertArrayEquals(new long[] {1234567890123L, 42L}, GuestInstructions.readMachines(totals, 2));
    }

    @Test
    void withoutCountingSaysHowToTurnItOn() {
        IOException e = assertThrows(IOException.class, () -> GuestInstructions.read(totals.resolve("none"), 0));
        assertTrue(e.getMessage().contains("--count-instructions"), e.getMessage());
    }

    @Test
    void aGuestThatIsNotCountedIsNamed() throws IOException {
        Files.writeString(totals.resolve("1"), "42\n");
        IOException e = assertThrows(IOException.class, () -> GuestInstructions.read(totals, 3));
        assertTrue(e.getMessage().contains("guest 3") && e.getMessage().contains("no such guest"), e.getMessage());
    }
}
