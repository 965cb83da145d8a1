package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that waits longer than the timeout for a complete request: a new one, or one
 * kept alive after its responses. Stock closes only kept-alive connections, and never one whose
 * request Netty's decoder is still waiting for (control characters only, a head never finished),
 * each of which would hold a descriptor and a place under the connection limit for good.
 * In TLS the clock starts once the handshake is done: the handshake has the SslHandler's own
 * timeout, and on a busy node it can take longer than the wait for a request.
 */
final class RequestTimeout extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RequestTimeout.class);
    private final long timeoutMillis;
    /** Requests read whose responses have not ended yet; the clock runs only while there are none. */
    private int unanswered;
    private ScheduledFuture<?> deadline;

    RequestTimeout(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive() && !inTls(ctx)) { // an accepted channel is active before its pipeline is built
            arm(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (deadline == null && !inTls(ctx)) {
            arm(ctx);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent && ((SslHandshakeCompletionEvent) event).isSuccess()
                && unanswered == 0) {
            arm(ctx);
        }
        ctx.fireUserEventTriggered(event);
    }

    private static boolean inTls(ChannelHandlerContext ctx) {
        return ctx.pipeline().get(SslHandler.class) != null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            unanswered++;
            disarm();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg, ResponseEnd.listen(msg, promise, written -> {
            unanswered = Math.max(0, unanswered - 1);
            if (unanswered == 0 && ctx.channel().isActive()) {
                arm(ctx);
            }
        }));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }

    private void arm(ChannelHandlerContext ctx) {
        disarm();
        deadline = ctx.executor().schedule(() -> {
            LOG.debug("Closing TIPC shuffle connection {}: no complete request within {} ms", ctx.channel(), timeoutMillis);
            ctx.close();
        }, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
