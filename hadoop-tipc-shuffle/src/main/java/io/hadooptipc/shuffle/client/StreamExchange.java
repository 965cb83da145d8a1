package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One HTTP/1.1 request and its response over a {@link ShuffleStream}: the request head
 * goes out, the response head comes back parsed, and the body is what follows it on
 * the stream. The shuffle needs no request body, chunking or connection reuse.
 */
final class StreamExchange {
    private static final int MAX_RESPONSE_HEAD = 64 * 1024;

    private final HttpHead head;
    private final int status;
    private final String message;
    private final InputStream body;

    private StreamExchange(HttpHead head, int status, String message, InputStream body) {
        this.head = head;
        this.status = status;
        this.message = message;
        this.body = body;
    }

    /** Sends {@code request} and reads the response head; the body is left on the stream. */
    static StreamExchange send(ShuffleStream stream, HttpHead request) throws IOException {
        stream.writeFully(ByteBuffer.wrap(request.encode()));
        byte[] buf = new byte[4096];
        int filled = 0;
        int scanned = 0; // the head's end is not before here
        int end;
        while ((end = HttpHead.endOf(buf, scanned, filled)) < 0) {
            scanned = Math.max(0, filled - 3);
            if (filled == buf.length) {
                if (buf.length >= MAX_RESPONSE_HEAD) {
                    throw new IOException("response head over " + MAX_RESPONSE_HEAD + " bytes");
                }
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            int n = stream.read(ByteBuffer.wrap(buf, filled, buf.length - filled));
            if (n < 0) {
                throw new EOFException("the stream ended before the response head did");
            }
            filled += n;
        }
        HttpHead head = HttpHead.parse(buf, 0, end);
        String[] status = head.startLine().split(" ", 3);
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (RuntimeException e) {
            throw new IOException("bad status line: " + head.startLine());
        }
        return new StreamExchange(head, code, status.length > 2 ? status[2] : "",
                new Body(Arrays.copyOfRange(buf, end, filled), stream));
    }

    HttpHead head() {
        return head;
    }

    int status() {
        return status;
    }

    String message() {
        return message;
    }

    /** The bytes after the response head, to the end of the stream; framing them is the caller's. */
    InputStream body() {
        return body;
    }

    /** The body bytes that came in with the head, then the stream's. */
    private static final class Body extends InputStream {
        private final byte[] early;
        private final ShuffleStream stream;
        private int earlyPos;

        Body(byte[] early, ShuffleStream stream) {
            this.early = early;
            this.stream = stream;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            if (earlyPos < early.length) {
                int n = Math.min(len, early.length - earlyPos);
                System.arraycopy(early, earlyPos, b, off, n);
                earlyPos += n;
                return n;
            }
            return stream.read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }
}
