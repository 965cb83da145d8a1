package io.hadooptipc.shuffle.client;

import java.nio.ByteBuffer;

/** A stream for the pool's bookkeeping, never read or written: it only records being closed. */
final class UnusedStream implements ShuffleStream {
    volatile boolean closed;

    @Override
    public int read(ByteBuffer dst) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void writeFully(ByteBuffer src) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String server() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
        closed = true;
    }
}
