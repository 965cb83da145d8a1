package io.hadooptipc.shuffle;

import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;

/** Bounded waits on a non-blocking java.nio channel, for the host tests' stand-ins of TIPC streams. */
public final class Readiness {
    private static final int SLICE_MILLIS = 20;

    private Readiness() {
    }

    /**
     * Waits until {@code channel} is ready for {@code ops}, for at most {@code millis} (0: forever);
     * false on timeout. Waits in slices, so that a close from another thread ends the wait soon.
     *
     * @throws AsynchronousCloseException when the channel is closed meanwhile
     */
    public static boolean await(SelectableChannel channel, int ops, int millis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis > 0 ? millis : Integer.MAX_VALUE);
        try (Selector selector = Selector.open()) {
            channel.register(selector, ops);
            while (selector.select(SLICE_MILLIS) == 0) {
                if (!channel.isOpen()) {
                    throw new AsynchronousCloseException();
                }
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
            }
            return true;
        }
    }
}
