package io.hadooptipc.shuffle.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

import java.io.IOException;

/**
 * Stock's write of a map output's {@code ShuffleHeader}, which stock makes just before the write of the map
 * output's file region, held by a handler that decides what to send once it sees that region.
 */
final class HeldHeader {
    private ByteBuf bytes;
    private ChannelPromise promise;

    /** Holds stock's header write, after any header held before it was passed on. */
    void hold(ByteBuf header, ChannelPromise written) {
        bytes = header;
        promise = written;
    }

    /** The held header's bytes; null when none is held. */
    ByteBuf bytes() {
        return bytes;
    }

    /**
     * Lets go of the held header, whose bytes are now the caller's to write or release: the promise of their
     * write, stock's, or a new one when none was held.
     */
    ChannelPromise handOver(ChannelHandlerContext ctx) {
        ChannelPromise written = promise == null ? ctx.newPromise() : promise;
        bytes = null;
        promise = null;
        return written;
    }

    /** Writes the held header on, as stock wrote it. */
    void pass(ChannelHandlerContext ctx) {
        if (bytes != null) {
            ctx.write(bytes, promise);
            bytes = null;
            promise = null;
        }
    }

    /** Releases the held header and fails its write: the connection closed before its map output came. */
    void drop() {
        if (bytes != null) {
            bytes.release();
            promise.tryFailure(new IOException("connection closed before the map output of a header was written"));
            bytes = null;
            promise = null;
        }
    }
}
