package io.hadooptipc.testbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Instructions that a testbed guest's emulated CPUs have executed since it booted: kernel and user, every
 * process, at most 10 ms old. {@code tipc-vm --count-instructions} keeps each guest's running total in a
 * file that every guest sees, so code in one guest can take counts before and after a piece of work, of
 * its own guest and of the other machines.
 */
public final class GuestInstructions {
    /** One file per guest, named by its machine number; 0 is the guest of {@code tipc-vm --nodes}. */
    static final Path TOTALS = Paths.get("/run/tipc-vm/instructions");
    /** How old a count may be: the counter writes the totals this often (instruction-counter.c). */
    public static final int STALENESS_MILLIS = 10;

    private GuestInstructions() {
    }

    /** Whether this guest sees the counts: it runs in {@code tipc-vm --count-instructions}. */
    public static boolean counted() {
        return Files.isDirectory(TOTALS);
    }

    /** The count of machine {@code machine} ({@code tipc-vm --machines}; 0: the guest of {@code --nodes}). */
    public static long of(int machine) throws IOException {
        return read(TOTALS, machine);
    }

    /** The counts of machines 1 to {@code machines} ({@code tipc-vm --machines}), machine 1 first. */
    public static long[] ofMachines(int machines) throws IOException {
        return readMachines(TOTALS, machines);
    }

    /** The count of the guest this runs in. */
    public static long ofThisGuest() throws IOException {
        String machine = System.getenv("TIPC_TESTBED_MACHINE");
        return of(machine == null ? 0 : Integer.parseInt(machine));
    }

    static long[] readMachines(Path totals, int machines) throws IOException {
        long[] counts = new long[machines];
        for (int machine = 1; machine <= machines; machine++) {
            counts[machine - 1] = read(totals, machine);
        }
        return counts;
    }

    static long read(Path totals, int machine) throws IOException {
        Path file = totals.resolve(Integer.toString(machine));
        String total;
        try {
            total = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            throw new IOException(Files.isDirectory(totals)
                    ? "no instruction count of guest " + machine + " in " + totals + ": no such guest"
                    : "no instruction count of guest " + machine + " (" + file
                            + "): run tipc-vm with --count-instructions", e);
        }
        try {
            return Long.parseLong(total);
        } catch (NumberFormatException e) {
            throw new IOException(file + " holds no instruction count: '" + total + "'", e);
        }
    }
}
