package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Ends a response at the header of the first map output larger than the request's
 * {@value TipcShuffleConfig#TCP_ABOVE_HEADER}: the reducer takes that output, and the rest of its task's,
 * over HTTP/TCP from that header on ({@code mapreduce.shuffle.tipc.tcp.above-bytes}), so every byte sent
 * after the header would cross the TIPC link in vain until the reducer's close reached this side.
 * <p>The header goes out, flushed past what {@link GatherSmallOutputs} holds. Once it is written, stock's
 * writes for the rest of the response are taken here and completed unsent, their files closed, so stock ends
 * the response as it ends one sent in full, without the error it logs for a map output that failed, and
 * the connection closes at the response's end; each map output taken is counted in
 * {@link TipcShuffleMetrics#outputsLeftForTcp}. A request without the header, or with one that is not a
 * byte count (stock's fetcher, a reducer that keeps every size on TIPC), is answered in full.
 * <p>Next to stock's handler, so that {@link TransferMetrics} counts only map outputs sent. Not in TLS,
 * where stock writes no file regions.
 */
final class EndAtLargeOutput extends ChannelDuplexHandler {
    private final TipcShuffleMetrics metrics;
    /** The request's threshold: 0 answers it in full. */
    private long above;
    /** A header written by stock whose map output has not come yet, held only while {@link #above} is set. */
    private final HeldHeader header = new HeldHeader();
    /** The response ended at a large map output's header: stock's writes are no longer sent. */
    private boolean ended;

    EndAtLargeOutput(TipcShuffleMetrics metrics) {
        this.metrics = metrics;
    }

    /** The byte count a request's header value gives, 0 for none or a value that is not one. */
    static long threshold(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            above = threshold(((HttpRequest) msg).headers().get(TipcShuffleConfig.TCP_ABOVE_HEADER));
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (ended) {
            take(ctx, msg, promise);
        } else if (above > 0 && msg instanceof FileRegion && ((FileRegion) msg).count() > above) {
            end(ctx, (FileRegion) msg, promise);
        } else {
            header.pass(ctx);
            if (above > 0 && msg instanceof ByteBuf) {
                header.hold((ByteBuf) msg, promise);
            } else {
                ctx.write(msg, promise);
            }
        }
    }

    /** Sends the held header, flushed; stock goes on with the rest of the response once it is written. */
    private void end(ChannelHandlerContext ctx, FileRegion region, ChannelPromise promise) {
        ended = true;
        metrics.outputsLeftForTcp.incr();
        region.release(); // closes its file before stock's listener runs, as Netty does for a region it sends
        ByteBuf bytes = header.bytes();
        ChannelPromise written = header.handOver(ctx).unvoid();
        written.addListener(sent -> {
            if (sent.isSuccess()) {
                promise.trySuccess();
            } else {
                promise.tryFailure(sent.cause());
            }
        });
        // As content rather than a bare buffer, which GatherSmallOutputs would hold for a map output to follow.
        ctx.writeAndFlush(new DefaultHttpContent(bytes == null ? Unpooled.EMPTY_BUFFER : bytes), written);
    }

    /**
     * A write of stock's after the end: completed unsent; the response's last closes the connection, which
     * stays open until then so that none of stock's writes fails on a closed channel.
     */
    private void take(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof FileRegion) {
            metrics.outputsLeftForTcp.incr();
        }
        boolean last = msg instanceof LastHttpContent;
        ReferenceCountUtil.release(msg);
        promise.trySuccess();
        if (last) {
            ctx.close();
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (!ended) {
            header.pass(ctx);
            ctx.flush();
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        header.drop();
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        header.drop();
    }
}
