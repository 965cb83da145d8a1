package io.hadooptipc.shuffle;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** Responses read one after another off one connection, as a reducer reads them, for tests. */
public final class ResponseReader {

    /** The connection's bytes: reads what has arrived, waiting a bounded time; -1 at end of stream. */
    @FunctionalInterface
    public interface Source {
        int read(ByteBuffer dst) throws IOException;
    }

    private final Source source;
    private byte[] buf = new byte[1 << 16];
    private int filled;

    public ResponseReader(Source source) {
        this.source = source;
    }

    public ShuffleHttp.Response next() throws IOException {
        while (true) {
            int end = HttpHead.endOf(buf, 0, filled);
            if (end >= 0) {
                long length = Long.parseLong(HttpHead.parse(buf, 0, end).field("Content-Length"));
                int total = Math.toIntExact(end + length);
                if (filled >= total) {
                    ShuffleHttp.Response r = ShuffleHttp.parse(Arrays.copyOf(buf, total));
                    System.arraycopy(buf, total, buf, 0, filled - total);
                    filled -= total;
                    return r;
                }
                if (buf.length < total) {
                    buf = Arrays.copyOf(buf, total);
                }
            }
            if (filled == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            if (read() < 0) {
                throw new EOFException("connection closed with " + filled + " bytes of a response");
            }
        }
    }

    /** Reads until the server closes; returns every byte count received on this connection. */
    public long drain() throws IOException {
        long total = filled;
        filled = 0;
        for (int n; (n = read()) >= 0; filled = 0) {
            total += n;
        }
        return total;
    }

    private int read() throws IOException {
        int n = source.read(ByteBuffer.wrap(buf, filled, buf.length - filled));
        if (n > 0) {
            filled += n;
        }
        return n;
    }
}
