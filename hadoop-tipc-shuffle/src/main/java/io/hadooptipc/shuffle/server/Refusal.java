package io.hadooptipc.shuffle.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.nio.charset.StandardCharsets;

/**
 * A refusal written as stock's {@code ShuffleChannelHandler.sendError} writes one (a text body, the
 * shuffle version headers, then a close), for the refusals our handlers make before stock's sees the
 * request; stock's method cannot be called from outside its handler.
 */
final class Refusal {
    private Refusal() {
    }

    static FullHttpResponse of(HttpResponseStatus status, String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .set(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME)
                .set(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        HttpUtil.setContentLength(response, body.length);
        return response;
    }

    /** Writes {@code response} through the whole pipeline, as stock does, and closes the connection after it. */
    static void sendAndClose(ChannelHandlerContext ctx, FullHttpResponse response) {
        ctx.channel().writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
