package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose reducer has taken none of a response's bytes for the write timeout.
 * Stock's pipeline turns its own idle timeout off while it sends map output, so a reducer that
 * stops reading mid-response would hold its connection and open map-output file for good.
 */
final class StalledReaderTimeout extends IdleStateHandler {
    private static final Logger LOG = LoggerFactory.getLogger(StalledReaderTimeout.class);
    private final long timeoutMillis;

    StalledReaderTimeout(long timeoutMillis) {
        super(true, 0, timeoutMillis, 0, TimeUnit.MILLISECONDS); // true: bytes taken count as activity
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) {
        ChannelOutboundBuffer pending = ctx.channel().unsafe().outboundBuffer();
        if (event.state() == IdleState.WRITER_IDLE && pending != null && !pending.isEmpty()) {
            LOG.warn("Closing TIPC shuffle connection {}: the reducer took no bytes for {} ms", ctx.channel(), timeoutMillis);
            ctx.close();
        }
    }
}
