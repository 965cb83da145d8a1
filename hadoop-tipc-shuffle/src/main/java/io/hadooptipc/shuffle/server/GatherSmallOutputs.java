package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCountUtil;

import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * Sends small map outputs of a response together: each one's {@code ShuffleHeader} and bytes in
 * one buffer, the buffers of several map outputs flushed at once, so that a request for many small
 * map outputs goes out in a few gathered writes (Netty's epoll channel writes a run of buffers with
 * one {@code writev}, which TIPC sends as one message up to its 66,000-byte limit) instead of a
 * header write, a {@code sendfile} and a flush for each.
 * <p>Stock's handler writes a map output as its header ({@code ch.write}), then its file region
 * ({@code writeAndFlush}), and starts the next map output when that region's write completes. A
 * region of at most {@code maxBytes} is read here into a buffer after its header, released, and its
 * write promise completed at once, so stock goes on with the next map output while the buffer waits;
 * stock's flushes are held back meanwhile. They go out, in order, with the first flush that follows
 * anything else (a larger region, sent from its file as stock does, with its readahead;
 * the response's end; an error answer), before the next map output would take the bytes held past
 * {@code maxBytes}, or before the connection closes. While the channel is not writable (the reducer
 * reads slower than stock goes on), what is held is flushed and the region's promise waits until the
 * channel is writable again, so a response takes no more memory than stock's plus {@code maxBytes}.
 * A small map output is read with one {@code pread}, without stock's readahead request. Its region's
 * file is closed before stock's listener runs, as Netty closes a region's file it sent before completing
 * the write, so stock advises the kernel to drop neither from the cache (its listener advises only for
 * an open file).
 * <p>A handler in the pipeline rather than a subclass of stock's handler: stock's handler
 * and the types of its {@code sendMapOutput} are package-private, which a subclass loaded by another
 * class loader than stock's (an aux service on its own class path) may not reach. The handler sits
 * between stock's and {@link TransferMetrics} on one side and the HTTP encoder on the other, so the
 * metrics still see each map output's region and count it when its promise completes: when its bytes
 * are held for the gathered write, which a connection lost later fails without failing the region.
 * Not in TLS, where stock writes no file regions.
 */
final class GatherSmallOutputs extends ChannelDuplexHandler {
    /** Stock's region holds its open file only in this private field; reading it avoids the readahead of its transferTo. */
    private static final Field REGION_FILE = regionFile();

    private final int maxBytes;
    /** A header written by stock whose map output has not come yet. */
    private final HeldHeader header = new HeldHeader();
    /** Map-output bytes (with their headers) written on since the last flush passed. */
    private long held;
    /** The promise of a gathered region, completed once the channel is writable again. */
    private ChannelPromise waiting;

    /** @param maxBytes the largest map output gathered, and the most gathered bytes held before a flush */
    GatherSmallOutputs(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    private static Field regionFile() {
        try {
            Field file = DefaultFileRegion.class.getDeclaredField("file");
            if (file.getType() != FileChannel.class) {
                throw new NoSuchFieldException("file is a " + file.getType().getName() + ", not a FileChannel");
            }
            file.setAccessible(true);
            return file;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read small map outputs from Netty's DefaultFileRegion, whose file"
                    + " field is gone in this Netty; set " + TipcShuffleConfig.GATHER_MAX_BYTES + " to 0: " + e, e);
        }
    }

    /**
     * {@code maxBytes} if it is a valid threshold, 0 disabling gathering. Called as the server starts, so
     * that a Netty whose regions cannot be read fails there (this class's initialization), not on a connection.
     */
    static int checked(int maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.GATHER_MAX_BYTES + " must be 0 or positive: " + maxBytes);
        }
        return maxBytes;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof DefaultFileRegion && ((DefaultFileRegion) msg).count() <= maxBytes) {
            DefaultFileRegion region = (DefaultFileRegion) msg;
            gather(ctx, region, promise);
            return;
        }
        header.pass(ctx);
        if (msg instanceof ByteBuf) {
            header.hold((ByteBuf) msg, promise);
        } else {
            held = 0; // stock flushes everything else it writes, and the held bytes go with it
            ctx.write(msg, promise);
        }
    }

    private void gather(ChannelHandlerContext ctx, DefaultFileRegion region, ChannelPromise promise) {
        ByteBuf headerBytes = header.bytes();
        int size = (headerBytes == null ? 0 : headerBytes.readableBytes()) + (int) region.count();
        if (held > 0 && held + size > maxBytes) {
            ctx.flush();
            held = 0;
        }
        ByteBuf gathered = ctx.alloc().directBuffer(size);
        ChannelPromise written = header.handOver(ctx);
        try {
            if (headerBytes != null) {
                gathered.writeBytes(headerBytes);
            }
            read(region, gathered);
        } catch (IOException | RuntimeException e) {
            gathered.release();
            written.tryFailure(e);
            promise.tryFailure(e);
            return;
        } finally {
            ReferenceCountUtil.release(headerBytes);
            region.release(); // closes its file before stock's listener runs, as Netty does for a region it sends
        }
        ctx.write(gathered, written);
        held += size;
        if (written.cause() != null) { // the connection is gone: stock stops sending
            promise.tryFailure(written.cause());
        } else if (ctx.channel().isWritable()) {
            promise.trySuccess();
        } else { // unwritable with unflushed bytes too: they must go for it to be writable again
            waiting = promise;
            held = 0;
            ctx.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (waiting != null && ctx.channel().isWritable()) {
            ChannelPromise written = waiting;
            waiting = null;
            written.trySuccess();
        }
        ctx.fireChannelWritabilityChanged();
    }

    private static void read(DefaultFileRegion region, ByteBuf into) throws IOException {
        region.open();
        FileChannel file;
        try {
            file = (FileChannel) REGION_FILE.get(region);
        } catch (IllegalAccessException e) { // made accessible as the class initialized
            throw new IllegalStateException(e);
        }
        long position = region.position();
        long end = position + region.count();
        while (position < end) {
            int n = into.writeBytes(file, position, (int) (end - position));
            if (n < 0) {
                throw new EOFException("map output file ends " + (end - position) + " bytes before its partition does");
            }
            position += n;
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (held == 0) {
            header.pass(ctx);
            ctx.flush();
        }
    }

    /**
     * Map outputs already gathered reach the reducer before the close, as stock's, flushed one by one,
     * would; a header whose map output never came does not, as stock's, written but never flushed, would not.
     */
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        dropPending();
        held = 0;
        ctx.flush();
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        dropPending();
    }

    private void dropPending() {
        if (waiting != null) {
            waiting.tryFailure(new ClosedChannelException());
            waiting = null;
        }
        header.drop();
    }
}
