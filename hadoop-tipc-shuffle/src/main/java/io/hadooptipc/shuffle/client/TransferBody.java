package io.hadooptipc.shuffle.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A response body as the stock fetcher reads it: its Content-Length bytes, counting map
 * outputs per transport as they pass. A body over TIPC goes on over HTTP/TCP from the byte
 * reached, on a stream {@link OverTcp} opens: when TIPC fails part-way, and by choice as soon
 * as the header of a map output that {@link OverTcp#wanted} there has arrived.
 */
final class TransferBody extends InputStream {

    /** Where a body over TIPC goes on over HTTP/TCP: a stream of the same response from a given offset. */
    interface OverTcp {
        /** True when a map output of {@code bytes}, under way over TIPC, should rather come over HTTP/TCP. */
        boolean wanted(long bytes);

        /** The body from {@code offset} after TIPC failed with {@code cause}, which is rethrown if it may not go on. */
        InputStream resume(long offset, IOException cause) throws IOException;

        /** The body from {@code offset}, by choice, the TIPC stream closed first. */
        InputStream choose(long offset) throws IOException;
    }

    private final long length; // -1: to the end of the stream
    private final MapOutputFrames frames;
    private final OverTcp overTcp;
    private final byte[] single = new byte[1];
    private InputStream in;
    private boolean viaTipc;
    private boolean leavingTipc;
    private long consumed;

    private TransferBody(InputStream in, boolean viaTipc, long length, MapOutputFrames.Sink outputs, OverTcp overTcp) {
        this.in = in;
        this.viaTipc = viaTipc;
        this.length = length;
        this.frames = new MapOutputFrames(outputs);
        this.overTcp = overTcp;
    }

    /** @param outputs told of each map output received, over TIPC or, once the body left it, HTTP/TCP */
    static TransferBody overTipc(InputStream in, long length, MapOutputFrames.Sink outputs, OverTcp overTcp) {
        return new TransferBody(in, true, length, outputs, overTcp);
    }

    /** @param outputs told of each map output received */
    static TransferBody overTcp(InputStream in, long length, MapOutputFrames.Sink outputs) {
        return new TransferBody(in, false, length, outputs, null);
    }

    @Override
    public int read() throws IOException { // DataInputStream reads ShuffleHeaders a byte at a time
        return read(single, 0, 1) < 0 ? -1 : single[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        checkRange(b, off, len);
        if (len == 0) {
            return 0;
        }
        if (length >= 0) {
            if (consumed >= length) {
                return -1;
            }
            len = (int) Math.min(len, length - consumed);
        }
        if (leavingTipc) {
            leavingTipc = false;
            in = overTcp.choose(consumed);
            viaTipc = false;
        }
        int n;
        if (viaTipc) {
            try {
                n = in.read(b, off, len);
                if (n < 0 && length >= 0) {
                    throw new EOFException("TIPC stream ended " + (length - consumed) + " bytes early");
                }
            } catch (IOException e) {
                in = overTcp.resume(consumed, e);
                viaTipc = false;
                n = in.read(b, off, len);
            }
        } else {
            n = in.read(b, off, len);
        }
        if (n > 0) {
            frames.accept(b, off, n, viaTipc);
            consumed += n;
            leavingTipc = viaTipc && overTcp.wanted(frames.outputUnderWay()); // from the next read on
        } else if (n < 0 && length >= 0) {
            throw new EOFException("response ended " + (length - consumed) + " bytes early");
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** What InputStream.read(byte[], int, int) checks of its arguments (Objects.checkFromIndexSize from Java 9). */
    static void checkRange(byte[] b, int off, int len) {
        if (off < 0 || len < 0 || len > b.length - off) {
            throw new IndexOutOfBoundsException("Range [" + off + ", " + off + " + " + len + ") out of bounds for length "
                    + b.length);
        }
    }
}
