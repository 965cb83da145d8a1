package io.hadooptipc.shuffle;

import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/** One request on a new TIPC connection, as raw bytes, for tests that check what a server answers byte for byte. */
public final class TipcExchange {
    private static final int IDLE_MILLIS = 30_000;

    /** Sends {@code request} to {@code service} and returns everything the server sent until it closed (or 30 s of silence). */
    public static byte[] untilClosed(TipcServiceAddress service, byte[] request) throws IOException {
        try (TipcSocketChannel ch = TipcSocketChannel.open(service)) {
            ch.writeFully(ByteBuffer.wrap(request));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(1 << 16);
            while (ch.awaitReadable(IDLE_MILLIS) && ch.read(buf.clear()) > 0) {
                got.write(buf.array(), 0, buf.position());
            }
            return got.toByteArray();
        }
    }

    private TipcExchange() {
    }
}
