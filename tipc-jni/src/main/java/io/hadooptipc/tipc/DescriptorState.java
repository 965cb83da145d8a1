package io.hadooptipc.tipc;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * Which threads are inside a system call on a descriptor, and whether it is closed, in
 * one word (as Netty's FileDescriptor keeps it): bit 0 is "closed", the rest counts the
 * calls in flight. Closing forbids new calls, and the number itself is released only
 * when the last call in flight leaves, so the kernel cannot give it to another socket
 * while a thread may still pass it to a system call.
 */
final class DescriptorState {
    private static final int CLOSED = 1;
    private static final int ONE_CALL = 2;

    private final AtomicInteger state = new AtomicInteger();
    private final IntSupplier release;

    /** {@code release} closes the descriptor(s) for good: it runs once, after close and the last call. */
    DescriptorState(IntSupplier release) {
        this.release = release;
    }

    /** Counts a call in; false when closed, and then nothing is counted. */
    boolean enter() {
        for (int s = state.get(); ; s = state.get()) {
            if ((s & CLOSED) != 0) {
                return false;
            }
            if (state.compareAndSet(s, s + ONE_CALL)) {
                return true;
            }
        }
    }

    /** Counts a call out; the last one out of a closed descriptor releases it and returns release's result, else 0. */
    int exit() {
        return state.addAndGet(-ONE_CALL) == CLOSED ? release.getAsInt() : 0;
    }

    /**
     * Marks the descriptor closed and counts the caller in, so that it can still wake
     * the calls in flight through it; the caller then calls {@link #exit()}. False,
     * with nothing counted, when it was closed already.
     */
    boolean closeAndEnter() {
        for (int s = state.get(); ; s = state.get()) {
            if ((s & CLOSED) != 0) {
                return false;
            }
            if (state.compareAndSet(s, (s | CLOSED) + ONE_CALL)) {
                return true;
            }
        }
    }

    /**
     * Marks the descriptor closed without releasing it, for a caller that takes the number over;
     * false, with nothing changed, when it is closed already or a call is in flight.
     */
    boolean detach() {
        return state.compareAndSet(0, CLOSED);
    }

    boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }
}
