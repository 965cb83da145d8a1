package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/1.1 request and its response over a {@link BufferedStream}: the request head
 * goes out, the response head comes back parsed, and the body is what follows it on
 * the stream, up to its Content-Length. The stream can carry another exchange only
 * once that body has been read exactly to its end and the server said
 * {@code Connection: keep-alive}. The shuffle needs no request body or chunking.
 */
final class StreamExchange {
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
    static StreamExchange send(BufferedStream stream, HttpHead request) throws IOException {
        int filled;
        try {
            stream.writeFully(ByteBuffer.wrap(request.encode()));
            filled = stream.fill(BufferedStream.BUFFER_BYTES);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            throw new NoResponse(e);
        }
        if (filled < 0) {
            throw new NoResponse(new EOFException("the stream ended before a response"));
        }
        return receive(stream);
    }

    /** Reads the rest of the response head, of which some bytes are buffered. */
    private static StreamExchange receive(BufferedStream stream) throws IOException {
        int scanned = 0; // the head's end starts no earlier than this many bytes in
        int length;
        while ((length = stream.headLength(scanned)) < 0) {
            scanned = Math.max(0, stream.buffered() - 3);
            if (stream.buffered() == BufferedStream.BUFFER_BYTES) {
                throw new IOException("response head over " + BufferedStream.BUFFER_BYTES + " bytes");
            }
            if (stream.fill(BufferedStream.BUFFER_BYTES) < 0) {
                throw new EOFException("the stream ended before the response head did");
            }
        }
        byte[] bytes = new byte[length];
        stream.take(bytes, 0, length);
        HttpHead head = HttpHead.parse(bytes, 0, length);
        String[] status = head.startLine().split(" ", 3);
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (RuntimeException e) {
            throw new IOException("bad status line: " + head.startLine());
        }
        return new StreamExchange(head, code, status.length > 2 ? status[2] : "",
                new Body(stream, contentLength(head)));
    }

    private static long contentLength(HttpHead head) {
        String value = head.field("Content-Length");
        try {
            return value == null ? -1 : Math.max(-1, Long.parseLong(value.trim()));
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
                String[] kv = parameter.trim().split("=", 2);
                if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("timeout")) {
                    try {
                        return TimeUnit.SECONDS.toMillis(Math.max(0, Long.parseLong(kv[1].trim())));
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

    /**
     * The stream's bytes after the head, up to the body's length (-1: to the stream's end), through the stream's
     * buffer: those that came in with the head first, then refills of at most what the body has left.
     */
    private static final class Body extends InputStream {
        private final BufferedStream stream;
        private final long length;
        private long read;

        Body(BufferedStream stream, long length) {
            this.stream = stream;
            this.length = length;
        }

        /** Every byte of a framed body read, and nothing after it arrived. */
        boolean readToEnd() {
            return length >= 0 && read == length && stream.buffered() == 0;
        }

        @Override
        public int read() throws IOException {
            if (!fill()) {
                return -1;
            }
            read++;
            return stream.takeByte();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            TransferBody.checkRange(b, off, len);
            if (len == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int n = (int) Math.min(Math.min(len, stream.buffered()), left());
            stream.take(b, off, n);
            read += n;
            return n;
        }

        private long left() {
            return length >= 0 ? length - read : Long.MAX_VALUE;
        }

        /** Whether a byte of the body is buffered, reading the stream if none is; false at the body's end. */
        private boolean fill() throws IOException {
            if (left() == 0) {
                return false;
            }
            while (stream.buffered() == 0) {
                if (stream.fill(left()) < 0) {
                    return false;
                }
            }
            return true;
        }
    }
}
