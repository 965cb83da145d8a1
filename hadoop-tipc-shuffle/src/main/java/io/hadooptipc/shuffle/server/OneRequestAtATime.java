package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Queue;

/**
 * Passes a connection's requests on one at a time: the next once the response to the one before
 * has been written to its end. Stock's handler starts answering a request as soon as it is read and
 * sends a response's map outputs one after another as each is written, so two requests pipelined in
 * one read would get their responses interleaved. Reading goes on meanwhile, since a TIPC peer's
 * close shows only to a socket that reads (epoll reports no EPOLLRDHUP for it), so the waiting
 * requests are bounded instead: a connection with more is closed.
 */
final class OneRequestAtATime extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(OneRequestAtATime.class);
    /** Far more than any fetcher sends: the stock one waits for each response before its next request. */
    static final int MAX_WAITING = 64;

    private final Queue<Object> waiting = new ArrayDeque<>();
    private boolean answering;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpRequest)) {
            ctx.fireChannelRead(msg);
        } else if (answering && waiting.size() == MAX_WAITING) {
            ReferenceCountUtil.release(msg);
            LOG.warn("Closing TIPC shuffle connection {}: more than {} requests wait for answers", ctx.channel(), MAX_WAITING);
            ctx.close();
        } else if (answering) {
            waiting.add(msg);
        } else {
            answering = true;
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg, ResponseEnd.listen(msg, promise, written -> {
            if (written.isSuccess()) {
                next(ctx);
            }
        }));
    }

    private void next(ChannelHandlerContext ctx) {
        answering = false;
        Object request = waiting.poll();
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
