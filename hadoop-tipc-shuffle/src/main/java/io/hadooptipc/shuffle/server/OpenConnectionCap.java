package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.tipc.Tipc;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.collection.IntObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounds on a server's open TIPC connections, in the listener's pipeline: a connection accepted
 * over one is closed there, before it is handed to an event loop, so connections that never send a
 * request (a flood) hold no more descriptors than the cap, however fast they come. Each admitted
 * connection counts until it is closed, whether or not it ever sent a request.
 * <p>
 * Two bounds: the cap on all connections, which bounds the descriptors, and a share of it per peer
 * TIPC node, the node the kernel says the connection comes from ({@link PeerNode}), which no process
 * chooses. One node's flood then holds at most its share, and the rest of the cap stays open to the
 * reducers of every other node, however fast the flood replaces its connections as they time out.
 * A fixed share rather than evicting from the node that holds the most at the cap: an accepted
 * connection is never closed for another's sake, so no fetch under way or kept-alive stream is cut,
 * the cap stays a hard bound (an eviction frees its descriptor only once the connection's own event
 * loop closes it), and a refusal costs a map lookup. A flood from several nodes holds one share each.
 * <p>
 * Every refusal is counted per bound; each bound's is logged at most once a minute, the node's with
 * the node, so that a flood writes a few lines, not one per connection.
 */
final class OpenConnectionCap extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(OpenConnectionCap.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The TIPC node an accepted connection comes from, as the kernel names it. */
    @FunctionalInterface
    interface PeerNode {
        int of(Channel accepted) throws IOException;
    }

    /** A TIPC connection's: getpeername(2) on the accepted socket. */
    static final PeerNode TIPC = accepted -> {
        if (!(accepted instanceof UnixChannel)) {
            throw new IOException("not a TIPC connection: " + accepted);
        }
        return Tipc.peerAddress(((UnixChannel) accepted).fd().intValue()).node();
    };

    private final int cap;
    private final int perNode;
    private final PeerNode peerNode;
    private final TipcShuffleMetrics metrics;
    private final AtomicInteger open = new AtomicInteger();
    /** Read and written on the listener's event loop only; a node's entry stays once made (one per cluster node). */
    private final IntObjectHashMap<Node> nodes = new IntObjectHashMap<>();
    private long overCapLoggedAt;
    private boolean overCapLogged;

    /**
     * @param cap     the most connections open at once, positive
     * @param perNode the most open at once from one peer node, positive
     */
    OpenConnectionCap(int cap, int perNode, PeerNode peerNode, TipcShuffleMetrics metrics) {
        this.cap = cap;
        this.perNode = perNode;
        this.peerNode = peerNode;
        this.metrics = metrics;
    }

    /** {@code accepted}: a connection the listener accepted, not registered with an event loop yet. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object accepted) {
        Channel connection = (Channel) accepted;
        Node node;
        try {
            node = node(peerNode.of(connection));
        } catch (IOException e) { // the peer has left already (ENOTCONN): nothing to serve
            LOG.debug("TIPC shuffle connection closed at accept, its peer unknown: {}", e.toString());
            connection.unsafe().closeForcibly();
            return;
        }
        // Only this loop admits, so a count read here can only have fallen by the time it is raised.
        if (node.open.get() >= perNode) {
            metrics.connectionsOverNodeCap.incr(); // counted before the peer can see the close
            connection.unsafe().closeForcibly();
            node.logRefusal();
            return;
        }
        if (open.incrementAndGet() > cap) {
            open.decrementAndGet();
            metrics.connectionsOverCap.incr();
            connection.unsafe().closeForcibly();
            logOverCap();
            return;
        }
        node.open.incrementAndGet();
        connection.closeFuture().addListener(node);
        ctx.fireChannelRead(connection);
    }

    private Node node(int address) {
        Node node = nodes.get(address);
        if (node == null) {
            node = new Node(address);
            nodes.put(address, node);
        }
        return node;
    }

    private void logOverCap() {
        long now = System.nanoTime();
        if (!overCapLogged || now - overCapLoggedAt >= LOG_INTERVAL_NANOS) {
            overCapLogged = true;
            overCapLoggedAt = now;
            LOG.warn("{} TIPC shuffle connections are open, {}: closing new ones as they are accepted"
                    + " (metric {} counts them)", cap, TipcShuffleConfig.MAX_OPEN_CONNECTIONS,
                    TipcShuffleMetrics.CONNECTIONS_OVER_CAP);
        }
    }

    /** One peer node's open connections; it is the close listener of each, which gives its place back. */
    private final class Node implements ChannelFutureListener {
        final int address;
        final AtomicInteger open = new AtomicInteger();
        long refusalLoggedAt;
        boolean refusalLogged;

        Node(int address) {
            this.address = address;
        }

        @Override
        public void operationComplete(ChannelFuture closed) {
            open.decrementAndGet();
            OpenConnectionCap.this.open.decrementAndGet();
        }

        void logRefusal() {
            long now = System.nanoTime();
            if (!refusalLogged || now - refusalLoggedAt >= LOG_INTERVAL_NANOS) {
                refusalLogged = true;
                refusalLoggedAt = now;
                LOG.warn("TIPC node {} has {} TIPC shuffle connections open, {}: closing its new ones as they are"
                        + " accepted (metric {} counts them); other nodes are served", Integer.toHexString(address),
                        perNode, TipcShuffleConfig.MAX_OPEN_CONNECTIONS_PER_NODE,
                        TipcShuffleMetrics.CONNECTIONS_OVER_NODE_CAP);
            }
        }
    }
}
