package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The bare calls keep the shim's contract on a descriptor no channel made: bytes at the given position, -errno. */
class ShimCallsTest {
    private static final int POLLIN = 0x1;
    private static final int EBADF = 9;

    @Test
    void movesBytesBetweenTheGivenPositionsOfDirectBuffers() throws Exception {
        ShimCalls.ensureLoaded();
        TipcSocketChannel[] pair = UnixSockets.pair();
        try (TipcSocketChannel a = pair[0]; TipcSocketChannel b = pair[1]) {
            ByteBuffer out = ByteBuffer.allocateDirect(16).putLong(8, 0x0123456789abcdefL);
            assertEquals(0, ShimCalls.poll(b.fd, POLLIN, 0), "nothing to read yet");
            assertEquals(8, ShimCalls.send(a.fd, out, 8, 8));
            assertEquals(POLLIN, ShimCalls.poll(b.fd, POLLIN, 1000));
            ByteBuffer in = ByteBuffer.allocateDirect(16);
            assertEquals(8, ShimCalls.recv(b.fd, in, 4, 8));
            assertEquals(0x0123456789abcdefL, in.getLong(4));
        }
    }

    @Test
    void failsWithMinusErrno() throws Exception {
        ShimCalls.ensureLoaded();
        assertEquals(-EBADF, ShimCalls.send(-1, ByteBuffer.allocateDirect(1), 0, 1));
        assertEquals(-EBADF, ShimCalls.recv(-1, ByteBuffer.allocateDirect(1), 0, 1));
    }
}
