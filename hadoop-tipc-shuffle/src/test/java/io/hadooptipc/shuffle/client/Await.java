package io.hadooptipc.shuffle.client;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Waiting in a test for what another thread does. */
final class Await {
    private Await() {
    }

    /** Returns once {@code condition} holds; fails, saying {@code what} was awaited, after 10 s. */
    static void until(String what, BooleanSupplier condition) throws InterruptedException {
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); !condition.getAsBoolean(); ) {
            assertTrue(System.nanoTime() - deadline < 0, what);
            Thread.sleep(10);
        }
    }
}
