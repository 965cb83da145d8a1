package io.hadooptipc.shuffle.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A response body as the stock fetcher reads it: its Content-Length bytes, counting map
 * outputs per transport as they pass. A body over TIPC that fails part-way goes on from
 * the stream {@link Resume} opens over HTTP/TCP at the byte reached.
 */
final class TransferBody extends InputStream {

    /** Where a body continues after TIPC failed: a stream at {@code offset}, or the failure rethrown. */
    @FunctionalInterface
    interface Resume {
        InputStream from(long offset, IOException cause) throws IOException;
    }

    private final long length; // -1: to the end of the stream
    private final MapOutputFrames frames;
    private final Resume resume;
    private final byte[] single = new byte[1];
    private InputStream in;
    private boolean viaTipc;
    private long consumed;

    private TransferBody(InputStream in, boolean viaTipc, long length, MapOutputFrames.Sink outputs, Resume resume) {
        this.in = in;
        this.viaTipc = viaTipc;
        this.length = length;
        this.frames = new MapOutputFrames(outputs);
        this.resume = resume;
    }

    /** @param outputs told of each map output received, over TIPC or, after a resume, HTTP/TCP */
    static TransferBody overTipc(InputStream in, long length, MapOutputFrames.Sink outputs, Resume resume) {
        return new TransferBody(in, true, length, outputs, resume);
    }

    static TransferBody overTcp(InputStream in, long length, TransferCounters counters) {
        return new TransferBody(in, false, length, counters, null);
    }

    @Override
    public int read() throws IOException { // DataInputStream reads ShuffleHeaders a byte at a time
        return read(single, 0, 1) < 0 ? -1 : single[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (length >= 0) {
            if (consumed >= length) {
                return -1;
            }
            len = (int) Math.min(len, length - consumed);
        }
        int n;
        if (viaTipc) {
            try {
                n = in.read(b, off, len);
                if (n < 0 && length >= 0) {
                    throw new EOFException("TIPC stream ended " + (length - consumed) + " bytes early");
                }
            } catch (IOException e) {
                in = resume.from(consumed, e);
                viaTipc = false;
                n = in.read(b, off, len);
            }
        } else {
            n = in.read(b, off, len);
        }
        if (n > 0) {
            frames.accept(b, off, n, viaTipc);
            consumed += n;
        } else if (n < 0 && length >= 0) {
            throw new EOFException("response ended " + (length - consumed) + " bytes early");
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
