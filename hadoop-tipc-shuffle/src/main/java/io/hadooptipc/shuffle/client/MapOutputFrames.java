package io.hadooptipc.shuffle.client;

import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.util.Arrays;

/**
 * Follows the framing of a shuffle response body, a {@link ShuffleHeader} then that
 * many bytes of map output, over and over, as the bytes go by, to credit each
 * completed map output to the transport that delivered its last byte. It reads what
 * the stock fetcher reads and never changes it; if the bytes stop making sense it
 * stops counting and leaves the verdict to the fetcher.
 */
final class MapOutputFrames {
    /** Receives each completed map output. */
    interface Sink {
        void mapOutput(boolean viaTipc, long bytes);
    }

    // As ShuffleHeader: a map id of at most 1000 bytes, then varints of at most 23.
    private static final int MAX_MAP_ID = 1000;
    private static final int MAX_HEADER = 1100;

    private final Sink sink;
    private byte[] header = new byte[64];
    private int headerLength;
    private long remaining;
    private long frameLength;
    private boolean lost;
    /** The parse's position in {@code header}, and the number {@link #vlong} read last. */
    private int at;
    private long value;

    MapOutputFrames(Sink sink) {
        this.sink = sink;
    }

    /** The length of the map output whose header has arrived and whose bytes have not all; 0 between map outputs. */
    long outputUnderWay() {
        return remaining > 0 ? frameLength : 0;
    }

    void accept(byte[] b, int off, int len, boolean viaTipc) {
        while (len > 0 && !lost) {
            if (remaining > 0) {
                int n = (int) Math.min(remaining, len);
                remaining -= n;
                off += n;
                len -= n;
                if (remaining == 0) {
                    sink.mapOutput(viaTipc, frameLength);
                }
                continue;
            }
            int take = Math.min(len, MAX_HEADER - headerLength);
            if (take == 0) {
                lost = true;
                return;
            }
            if (headerLength + take > header.length) {
                header = Arrays.copyOf(header, Math.max(header.length * 2, headerLength + take));
            }
            System.arraycopy(b, off, header, headerLength, take);
            int before = headerLength;
            headerLength += take;
            int used = parse();
            if (used < 0) { // header incomplete: everything taken belongs to it
                off += take;
                len -= take;
                continue;
            }
            off += used - before;
            len -= used - before;
            headerLength = 0;
            if (remaining == 0) {
                sink.mapOutput(viaTipc, 0);
            }
        }
    }

    /**
     * Bytes of a complete header at the start of the buffer, or -1 if more are needed; what is no header
     * marks the frames lost. Parsed in place, without allocating or throwing: this runs for every map output.
     */
    private int parse() {
        at = 0; // the ShuffleHeader wire format: map id (a VInt length, then its bytes), compressed length, raw length, reduce
        if (!vlong()) {
            return -1;
        }
        if (value < 0 || value > MAX_MAP_ID) {
            lost = true;
            return headerLength;
        }
        at += (int) value;
        if (at > headerLength || !vlong()) {
            return -1;
        }
        long length = value;
        if (!vlong() || !vlong()) {
            return -1;
        }
        if (length < 0 || value != (int) value) {
            lost = true;
        }
        remaining = length;
        frameLength = length;
        return at;
    }

    /** Reads a number as WritableUtils writes it (VLong; a VInt is one that fits in an int) at {@code at}; false if more bytes are needed. */
    private boolean vlong() {
        if (at >= headerLength) {
            return false;
        }
        byte first = header[at];
        int size = WritableUtils.decodeVIntSize(first);
        if (at + size > headerLength) {
            return false;
        }
        long v = first;
        if (size > 1) {
            v = 0;
            for (int i = 1; i < size; i++) {
                v = v << 8 | (header[at + i] & 0xff);
            }
            if (WritableUtils.isNegativeVInt(first)) {
                v = ~v;
            }
        }
        value = v;
        at += size;
        return true;
    }
}
