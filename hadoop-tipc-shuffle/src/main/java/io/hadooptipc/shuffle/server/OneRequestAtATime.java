package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;
import java.util.Queue;

/**
 * Passes a connection's requests on one at a time: the next once the response to the one before
 * has been written to its end. Stock's handler starts answering a request as soon as it is read and
 * sends a response's map outputs one after another as each is written, so two requests pipelined in
 * one read would get their responses interleaved. Reading pauses while requests wait.
 */
final class OneRequestAtATime extends ChannelDuplexHandler {
    private final Queue<Object> waiting = new ArrayDeque<>();
    private boolean answering;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpRequest)) {
            ctx.fireChannelRead(msg);
        } else if (answering) {
            waiting.add(msg);
            ctx.channel().config().setAutoRead(false);
        } else {
            answering = true;
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent) { // a response's end, FullHttpResponse included
            promise = promise.unvoid();
            promise.addListener(written -> {
                if (written.isSuccess()) {
                    next(ctx);
                }
            });
        }
        ctx.write(msg, promise);
    }

    private void next(ChannelHandlerContext ctx) {
        answering = false;
        Object request = waiting.poll();
        if (waiting.isEmpty()) {
            ctx.channel().config().setAutoRead(true);
        }
        if (request != null) {
            answering = true;
            ctx.fireChannelRead(request);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        waiting.forEach(ReferenceCountUtil::release);
        waiting.clear();
        ctx.fireChannelInactive();
    }
}
