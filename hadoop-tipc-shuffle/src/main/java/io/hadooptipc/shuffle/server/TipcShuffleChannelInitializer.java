package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import org.apache.hadoop.mapred.ShuffleChannelInitializer;

import java.util.Set;

/**
 * Stock's shuffle pipeline for a TIPC connection, with what TIPC adds around stock's handler
 * (named {@code shuffle} by stock): requests answered one at a time, the server's identity, one
 * answer for every request the job token refuses, per-transport metrics, the connection limit, timeouts for connections that send no request and
 * for reducers that stop reading, and a close TIPC peers read as a clean end of stream.
 */
final class TipcShuffleChannelInitializer extends ChannelInitializer<SocketChannel> {
    private static final String STOCK_HANDLER = "shuffle";

    private final ShuffleChannelInitializer stock;
    private final Set<String> identities;
    private final TipcShuffleMetrics metrics;
    private final long writeTimeoutMillis;
    private final long requestTimeoutMillis;
    private final ConnectionLimit limit;

    /**
     * @param stock          stock's initializer, over a handler context without a connection limit
     * @param maxConnections stock's {@code mapreduce.shuffle.max.connections}, applied here instead
     */
    TipcShuffleChannelInitializer(ShuffleChannelInitializer stock, Set<String> identities, TipcShuffleMetrics metrics,
                                  long writeTimeoutMillis, long requestTimeoutMillis, int maxConnections) {
        this.stock = stock;
        this.limit = new ConnectionLimit(maxConnections);
        this.identities = Set.copyOf(identities);
        this.metrics = metrics;
        this.writeTimeoutMillis = writeTimeoutMillis;
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    @Override
    protected void initChannel(SocketChannel ch) throws Exception {
        stock.initChannel(ch);
        ChannelPipeline pipeline = ch.pipeline();
        pipeline.addFirst("tipc-shutdown", new ShutdownBeforeClose());
        pipeline.addBefore(STOCK_HANDLER, "tipc-request-timeout", new RequestTimeout(requestTimeoutMillis));
        pipeline.addBefore(STOCK_HANDLER, "tipc-one-request", new OneRequestAtATime());
        pipeline.addBefore(STOCK_HANDLER, "tipc-identity", new ServerIdentity(identities));
        pipeline.addBefore(STOCK_HANDLER, "tipc-unauthorized", new UnauthorizedAnswer());
        pipeline.addBefore(STOCK_HANDLER, "tipc-metrics", new TransferMetrics(metrics));
        pipeline.addBefore(STOCK_HANDLER, "tipc-connection-limit", limit);
        pipeline.addLast("tipc-stalled-reader", new StalledReaderTimeout(writeTimeoutMillis));
    }
}
