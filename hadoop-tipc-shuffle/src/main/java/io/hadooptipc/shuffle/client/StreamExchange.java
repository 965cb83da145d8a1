package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/1.1 request and its response over a {@link ShuffleStream}: the request head
 * goes out, the response head comes back parsed, and the body is what follows it on
 * the stream, up to its Content-Length. The stream can carry another exchange only
 * once that body has been read exactly to its end and the server said
 * {@code Connection: keep-alive}. The shuffle needs no request body or chunking.
 */
final class StreamExchange {
    private static final int MAX_RESPONSE_HEAD = 64 * 1024;

    private final HttpHead head;
    private final int status;
    private final String message;
    private final Body body;
    private final boolean keptAlive;

    private StreamExchange(HttpHead head, int status, String message, Body body) {
        this.head = head;
        this.status = status;
        this.message = message;
        this.body = body;
        this.keptAlive = "keep-alive".equalsIgnoreCase(head.field("Connection"));
    }

    /**
     * Sends {@code request} and reads the response head; the body is left on the stream.
     *
     * @throws NoResponse when the stream failed or ended before any byte of a response (other than by
     *                    a timeout): on a kept-alive stream, the server closed it while it was idle
     */
    static StreamExchange send(ShuffleStream stream, HttpHead request) throws IOException {
        byte[] buf = new byte[4096];
        int filled;
        try {
            stream.writeFully(ByteBuffer.wrap(request.encode()));
            filled = stream.read(ByteBuffer.wrap(buf));
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            throw new NoResponse(e);
        }
        if (filled < 0) {
            throw new NoResponse(new EOFException("the stream ended before a response"));
        }
        return receive(stream, buf, filled);
    }

    /** Reads the rest of the response head, of which {@code filled} bytes are in {@code buf}. */
    private static StreamExchange receive(ShuffleStream stream, byte[] buf, int filled) throws IOException {
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
                new Body(Arrays.copyOfRange(buf, end, filled), stream, contentLength(head)));
    }

    private static long contentLength(HttpHead head) {
        String value = head.field("Content-Length");
        try {
            return value == null ? -1 : Math.max(-1, Long.parseLong(value.strip()));
        } catch (NumberFormatException e) {
            return -1;
        }
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

    /**
     * The bytes after the response head: Content-Length of them, or without one to the end of
     * the stream. Closing it leaves the stream to whoever sent the request.
     */
    InputStream body() {
        return body;
    }

    /** Whether the stream may carry the next request: kept alive by the server, its body read to the last byte. */
    boolean streamReusable() {
        return keptAlive && body.readToEnd();
    }

    /** How long the server keeps the stream open while idle, from its {@code Keep-Alive: timeout=} seconds; else unbounded. */
    long keepAliveMillis() {
        String value = head.field("Keep-Alive");
        if (value != null) {
            for (String parameter : value.split(",")) {
                String[] kv = parameter.strip().split("=", 2);
                if (kv.length == 2 && kv[0].strip().equalsIgnoreCase("timeout")) {
                    try {
                        return TimeUnit.SECONDS.toMillis(Math.max(0, Long.parseLong(kv[1].strip())));
                    } catch (NumberFormatException e) {
                        break;
                    }
                }
            }
        }
        return Long.MAX_VALUE;
    }

    /** The stream ended or failed before any byte of the response arrived. */
    static final class NoResponse extends IOException {
        private static final long serialVersionUID = 1L;

        NoResponse(IOException cause) {
            super("no response: " + cause.getMessage(), cause);
        }
    }

    /** The body bytes that came in with the head, then the stream's, up to its length (-1: to the stream's end). */
    private static final class Body extends InputStream {
        private final byte[] early;
        private final ShuffleStream stream;
        private final long length;
        private int earlyPos;
        private long read;

        Body(byte[] early, ShuffleStream stream, long length) {
            this.early = early;
            this.stream = stream;
            this.length = length;
        }

        /** Every byte of a framed body read, and nothing after it had arrived with the head. */
        boolean readToEnd() {
            return length >= 0 && read == length && early.length <= length;
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
            if (length >= 0) {
                if (read >= length) {
                    return -1;
                }
                len = (int) Math.min(len, length - read);
            }
            int n;
            if (earlyPos < early.length) {
                n = Math.min(len, early.length - earlyPos);
                System.arraycopy(early, earlyPos, b, off, n);
                earlyPos += n;
            } else {
                n = stream.read(ByteBuffer.wrap(b, off, len));
            }
            if (n > 0) {
                read += n;
            }
            return n;
        }
    }
}
