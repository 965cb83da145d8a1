package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.stream.ChunkedInput;

/**
 * Counts a TIPC connection's traffic into {@link TipcShuffleMetrics}: connections, map outputs
 * written in full or failed (each is one file region in stock's pipeline, one chunked file with TLS)
 * and their bytes, and
 * responses with an error status.
 */
final class TransferMetrics extends ChannelDuplexHandler {
    private final TipcShuffleMetrics metrics;

    TransferMetrics(TipcShuffleMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connections.incr();
        metrics.openConnections.incr();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        metrics.openConnections.decr();
        ctx.fireChannelInactive();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        long bytes = msg instanceof FileRegion ? ((FileRegion) msg).count()
                : msg instanceof ChunkedInput<?> ? ((ChunkedInput<?>) msg).length() : -1;
        if (bytes >= 0) {
            promise = promise.unvoid();
            promise.addListener(written -> {
                if (written.isSuccess()) {
                    metrics.outputsOk.incr();
                    metrics.outputBytes.incr(bytes);
                } else {
                    metrics.outputsFailed.incr();
                }
            });
        } else if (msg instanceof HttpResponse && ((HttpResponse) msg).status().code() >= 400) {
            metrics.requestsRejected.incr();
        }
        ctx.write(msg, promise);
    }
}
