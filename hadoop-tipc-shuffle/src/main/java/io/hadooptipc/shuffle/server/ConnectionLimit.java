package io.hadooptipc.shuffle.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

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
    private final int maxConnections;
    private final AtomicInteger open = new AtomicInteger();

    /** @param maxConnections 0: no limit */
    ConnectionLimit(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        open.incrementAndGet();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest && maxConnections > 0 && open.get() > maxConnections) {
            ReferenceCountUtil.release(msg);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    ShuffleHandler.TOO_MANY_REQ_STATUS, Unpooled.EMPTY_BUFFER);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                    .set(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME)
                    .set(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION)
                    .set(ShuffleHandler.RETRY_AFTER_HEADER, ShuffleHandler.FETCH_RETRY_DELAY);
            HttpUtil.setContentLength(response, 0);
            ctx.channel().writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.fireChannelRead(msg);
    }
}
