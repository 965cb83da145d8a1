package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Splits the bytes of one connection into request heads, as they arrive in reads of
 * any size: several pipelined requests in one read come out one by one, in order,
 * and a head split across reads comes out once its blank line has arrived. Bytes
 * that cannot be part of a request head are refused as soon as they are seen.
 */
final class RequestHeads {
    private final int maxHeadBytes;
    private byte[] buf;
    private int filled;
    private int scanned; // no head ends before here

    RequestHeads(int maxHeadBytes) {
        this.maxHeadBytes = maxHeadBytes;
        this.buf = new byte[Math.min(2048, maxHeadBytes + 4)];
    }

    /** Where the next read goes; never empty while the buffered bytes are within the limit. */
    ByteBuffer space() {
        if (filled == buf.length) {
            buf = Arrays.copyOf(buf, Math.min(buf.length * 2, maxHeadBytes + 4));
        }
        return ByteBuffer.wrap(buf, filled, buf.length - filled);
    }

    /** Records {@code n} bytes read into {@link #space()}. */
    void filled(int n) {
        filled += n;
    }

    /** Whether bytes of a next request are waiting. */
    boolean hasBytes() {
        return filled > 0;
    }

    /**
     * The next complete head, or null until more bytes arrive.
     *
     * @throws HeadTooLarge when no head ends within the limit
     * @throws HttpHead.MalformedHttpException when the bytes are not a request head
     */
    HttpHead next() throws HeadTooLarge, HttpHead.MalformedHttpException {
        int end = HttpHead.endOf(buf, Math.max(0, scanned - 3), filled);
        if (end < 0) {
            for (int i = scanned; i < filled; i++) {
                int b = buf[i] & 0xff;
                if ((b < ' ' && b != '\r' && b != '\n' && b != '\t') || b == 127) {
                    throw new HttpHead.MalformedHttpException("control character 0x" + Integer.toHexString(b)
                            + " in a request head");
                }
            }
            scanned = filled;
            if (filled > maxHeadBytes) {
                throw new HeadTooLarge(maxHeadBytes);
            }
            return null;
        }
        HttpHead head = HttpHead.parse(buf, 0, end);
        System.arraycopy(buf, end, buf, 0, filled - end);
        filled -= end;
        scanned = 0; // what follows this head has not been looked at as a head of its own
        return head;
    }

    /** No request head ends within the limit. */
    static final class HeadTooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        HeadTooLarge(int limit) {
            super("request head over " + limit + " bytes");
        }
    }
}
