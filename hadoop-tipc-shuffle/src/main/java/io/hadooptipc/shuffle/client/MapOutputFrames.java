package io.hadooptipc.shuffle.client;

import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.io.EOFException;
import java.io.IOException;
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

    MapOutputFrames(Sink sink) {
        this.sink = sink;
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

    /** Bytes of a complete header at the start of the buffer, or -1 if more are needed. */
    private int parse() {
        DataInputBuffer in = new DataInputBuffer();
        in.reset(header, headerLength);
        long length;
        try { // the ShuffleHeader wire format: map id, compressed length, raw length, reduce
            WritableUtils.readStringSafely(in, MAX_MAP_ID);
            length = WritableUtils.readVLong(in);
            WritableUtils.readVLong(in);
            WritableUtils.readVInt(in);
        } catch (EOFException e) {
            return -1;
        } catch (IOException | RuntimeException e) {
            lost = true;
            return headerLength;
        }
        if (length < 0) {
            lost = true;
        }
        remaining = length;
        frameLength = length;
        return in.getPosition();
    }
}
