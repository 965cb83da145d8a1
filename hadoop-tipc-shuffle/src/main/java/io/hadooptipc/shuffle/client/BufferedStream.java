package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A shuffle stream read through a buffer of its own, as OkHttp's codec reads a socket through a
 * buffered source: a response's head and the small reads of its body (the stock fetcher reads each
 * ShuffleHeader a byte at a time) come from the buffer, which one read of the stream refills. A
 * refill never asks for more than the caller says the response has left, so the buffer is empty
 * when a response ends and the stream can carry the next one. The buffer is direct: the stream
 * reads into it with no copy on the way.
 */
final class BufferedStream implements Closeable {
    /** The buffer's size, and so the most one read of the stream asks for. */
    static final int BUFFER_BYTES = 64 * 1024;

    private final ShuffleStream stream;
    private final ByteBuffer buffer = (ByteBuffer) ByteBuffer.allocateDirect(BUFFER_BYTES).flip(); // unread: position..limit

    BufferedStream(ShuffleStream stream) {
        this.stream = stream;
    }

    /** See {@link ShuffleStream#server()}. */
    String server() {
        return stream.server();
    }

    void writeFully(ByteBuffer src) throws IOException {
        stream.writeFully(src);
    }

    /** Bytes read from the stream and not yet taken. */
    int buffered() {
        return buffer.remaining();
    }

    /**
     * Reads once from the stream into the buffer, at most {@code limit} bytes and what the buffer has room
     * for, waiting for at least one.
     *
     * @return the bytes added; 0 if the buffer is full or {@code limit} is 0; -1 at the end of the stream
     */
    int fill(long limit) throws IOException {
        buffer.compact();
        int room = (int) Math.min(buffer.remaining(), Math.max(0, limit));
        if (room == 0) {
            buffer.flip();
            return 0;
        }
        buffer.limit(buffer.position() + room);
        try {
            return stream.read(buffer);
        } finally {
            buffer.limit(buffer.position()).position(0);
        }
    }

    /**
     * The buffered bytes up to the end of the first empty line (CRLF CRLF) that starts at or after
     * {@code scanned} of them (bytes already searched), or -1.
     */
    int headLength(int scanned) {
        int start = buffer.position();
        int end = HttpHead.endOf(buffer, start + scanned, buffer.limit());
        return end < 0 ? -1 : end - start;
    }

    /** Takes {@code n} buffered bytes, {@code n} at most {@link #buffered()}, into {@code dst} at {@code off}. */
    void take(byte[] dst, int off, int n) {
        buffer.get(dst, off, n);
    }

    /** Takes one buffered byte, of which there must be one. */
    int takeByte() {
        return buffer.get() & 0xff;
    }

    @Override
    public void close() throws IOException {
        stream.close();
    }

    /** Closes {@code stream} if there is one; a failure to close is only logged, the stream being done with. */
    static void closeQuietly(BufferedStream stream) {
        if (stream != null) {
            ShuffleStream.closeQuietly(stream.stream);
        }
    }

    @Override
    public String toString() {
        return stream.toString();
    }
}
