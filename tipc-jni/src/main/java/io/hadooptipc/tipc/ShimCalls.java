package io.hadooptipc.tipc;

import java.nio.ByteBuffer;

/**
 * Three of the JNI shim's calls, bare: no channel state, no checks, the syscall's result or
 * {@code -errno}. They exist to measure what one call through the shim costs
 * ({@code benchmarks/native-calls} compares it with JNA) on descriptors the caller made
 * itself. Applications use the channels: these take any descriptor number.
 */
public final class ShimCalls {
    private ShimCalls() {
    }

    /** Loads the shim, or fails with the reason it cannot be loaded. */
    public static void ensureLoaded() throws TipcException {
        TipcNative.ensureLoaded();
    }

    /** poll(2) of one descriptor: its revents, 0 on timeout, or -errno. */
    public static int poll(int fd, int events, int timeoutMillis) {
        return TipcNative.poll(fd, events, timeoutMillis);
    }

    /** send(2) with MSG_NOSIGNAL of a direct buffer's bytes [position, position + length). */
    public static int send(int fd, ByteBuffer direct, int position, int length) {
        return TipcNative.send(fd, direct, position, length);
    }

    /** recv(2) into a direct buffer's bytes [position, position + length). */
    public static int recv(int fd, ByteBuffer direct, int position, int length) {
        return TipcNative.recv(fd, direct, position, length);
    }
}
