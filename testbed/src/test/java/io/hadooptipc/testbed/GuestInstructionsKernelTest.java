package io.hadooptipc.testbed;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * In a guest of tipc-vm --count-instructions: the count grows by at least the instructions of a known
 * workload while it runs, and by far less while the guest idles for a second.
 */
@Tag("tipc-kernel")
class GuestInstructionsKernelTest {
    /** Iterations of a chain of dependent multiply-adds: each needs at least one instruction of its own. */
    private static final long ITERATIONS = 1_000_000_000L;

    @Test
    void countGrowsWithWorkAndBarelyWhileIdle() throws Exception {
        long before = GuestInstructions.ofThisGuest();
        long chain = multiplyAdd(ITERATIONS);
        // Let the totals catch up (they are rewritten every 10 ms) and the JIT finish with the workload.
        Thread.sleep(200);
        long busy = GuestInstructions.ofThisGuest() - before;

        long idleStart = GuestInstructions.ofThisGuest();
        Thread.sleep(1000);
        long idle = GuestInstructions.ofThisGuest() - idleStart;

        assertTrue(busy >= ITERATIONS, "the workload ran " + ITERATIONS + " iterations, but the count grew by "
                + busy + " (chain " + chain + ")");
        assertTrue(idle < busy / 10, "idle for 1 s the count grew by " + idle + ", working by " + busy);
    }

    /** Each step depends on the last, so the JIT can neither drop nor vectorise the loop. */
    private static long multiplyAdd(long iterations) {
        long x = 1;
        for (long i = 0; i < iterations; i++) {
            x = x * 6364136223846793005L + i;
        }
        return x;
    }
}
