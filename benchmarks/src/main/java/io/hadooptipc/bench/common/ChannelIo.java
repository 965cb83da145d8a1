package io.hadooptipc.bench.common;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;

/** Whole buffers over a blocking channel: a write or read may move only part of one. */
public final class ChannelIo {
    private ChannelIo() {
    }

    public static void writeFully(ByteChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    public static void readFully(ByteChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IOException("stream ended early");
            }
        }
    }
}
