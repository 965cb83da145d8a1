package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hard bound on a server's open TIPC connections, in the listener's pipeline: a connection
 * accepted over it is closed there, before it is handed to an event loop, so connections that
 * never send a request (a flood) hold no more descriptors than the cap, however fast they come.
 * Each admitted connection counts until it is closed, whether or not it ever sent a request.
 */
@ChannelHandler.Sharable
final class OpenConnectionCap extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(OpenConnectionCap.class);

    private final int cap;
    private final TipcShuffleMetrics metrics;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicBoolean refusalLogged = new AtomicBoolean();
    private final ChannelFutureListener release = closed -> open.decrementAndGet();

    /** @param cap positive */
    OpenConnectionCap(int cap, TipcShuffleMetrics metrics) {
        this.cap = cap;
        this.metrics = metrics;
    }

    /** {@code accepted}: a connection the listener accepted, not registered with an event loop yet. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object accepted) {
        Channel connection = (Channel) accepted;
        if (open.incrementAndGet() > cap) {
            open.decrementAndGet();
            metrics.connectionsOverCap.incr(); // counted before the peer can see the close
            connection.unsafe().closeForcibly();
            if (refusalLogged.compareAndSet(false, true)) { // a flood would otherwise log a line per connection
                LOG.warn("{} TIPC shuffle connections are open, {}: closing new ones as they are accepted"
                        + " (metric {} counts them)", cap, TipcShuffleConfig.MAX_OPEN_CONNECTIONS,
                        TipcShuffleMetrics.CONNECTIONS_OVER_CAP);
            }
            return;
        }
        connection.closeFuture().addListener(release);
        ctx.fireChannelRead(connection);
    }
}
