package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import org.apache.hadoop.mapred.ShuffleHandler;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stock's {@code mapreduce.shuffle.max.connections} for TIPC connections, answered as stock answers
 * it (429 with {@code Retry-After}) but once the request has been read, where stock answers at
 * accept. A TIPC socket closed with bytes unread aborts the connection, and the peer then loses
 * what was sent to it: the reducer would see its request refused with EPIPE, never the 429, and
 * fall back to HTTP/TCP instead of backing off. One instance counts every connection of a server.
 */
@ChannelHandler.Sharable
final class ConnectionLimit extends ChannelInboundHandlerAdapter {
    /** Set while a connection counts against the limit: from accept until refused or closed. */
    private static final AttributeKey<Boolean> COUNTED = AttributeKey.valueOf(ConnectionLimit.class, "counted");
    private final int maxConnections;
    private final AtomicInteger open = new AtomicInteger();

    /** @param maxConnections 0: no limit */
    ConnectionLimit(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.channel().attr(COUNTED).set(Boolean.TRUE);
        open.incrementAndGet();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        uncount(ctx);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest && maxConnections > 0 && open.get() > maxConnections) {
            // Out of the count at once: Netty reports the close only a loop turn later, and a request
            // read on another connection meanwhile would be refused for a connection already gone.
            uncount(ctx);
            ReferenceCountUtil.release(msg);
            FullHttpResponse response = Refusal.of(ShuffleHandler.TOO_MANY_REQ_STATUS, "");
            response.headers().set(ShuffleHandler.RETRY_AFTER_HEADER, ShuffleHandler.FETCH_RETRY_DELAY);
            Refusal.sendAndClose(ctx, response);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void uncount(ChannelHandlerContext ctx) {
        if (Boolean.TRUE.equals(ctx.channel().attr(COUNTED).getAndSet(null))) {
            open.decrementAndGet();
        }
    }
}
