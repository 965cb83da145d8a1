package io.hadooptipc.shuffle.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

import java.nio.charset.StandardCharsets;

/**
 * One answer for every request the job-token check refuses: stock's 401 text tells an unknown
 * job ("Could not find jobid") from a missing or wrong UrlHash, which over TIPC tells any process
 * on any node which job ids this NodeManager serves. The NodeManager's log keeps stock's reason.
 */
final class UnauthorizedAnswer extends ChannelOutboundHandlerAdapter {
    static final String TEXT = "Unauthorized: no job token of this server verifies the request";

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof FullHttpResponse
                && ((FullHttpResponse) msg).status().equals(HttpResponseStatus.UNAUTHORIZED)) {
            FullHttpResponse response = (FullHttpResponse) msg;
            FullHttpResponse uniform = response.replace(Unpooled.copiedBuffer(TEXT, StandardCharsets.UTF_8));
            HttpUtil.setContentLength(uniform, uniform.content().readableBytes());
            response.release();
            ctx.write(uniform, promise);
            return;
        }
        ctx.write(msg, promise);
    }
}
