package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import org.apache.hadoop.mapred.ShuffleChannelInitializer;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * Stock's shuffle pipeline for a TIPC connection, with what TIPC adds around stock's handler
 * (named {@code shuffle} by stock): requests answered one at a time, the server's identity, requests
 * served only when bound to this connection's socket by the job token, one answer for every request
 * the job token refuses, per-transport metrics, the connection limit, timeouts for connections that send no request and
 * for reducers that stop reading, a close TIPC peers read as a clean end of stream, and, without TLS, small
 * map outputs sent together and a response ended at a map output the reducer takes over HTTP/TCP.
 */
final class TipcShuffleChannelInitializer extends ChannelInitializer<SocketChannel> {
    private static final String STOCK_HANDLER = "shuffle";

    private final ShuffleChannelInitializer stock;
    private final Set<String> identities;
    private final TipcShuffleMetrics metrics;
    private final long writeTimeoutMillis;
    private final long requestTimeoutMillis;
    private final ConnectionLimit limit;
    private final int gatherMaxBytes;
    private final JobTokenSecretManager tokens;
    private final ChannelBindingCheck.ServerSocket serverSocket;
    private final int httpPort;

    /**
     * @param stock          stock's initializer, over a handler context without a connection limit
     * @param maxConnections stock's {@code mapreduce.shuffle.max.connections}, applied here instead
     * @param gatherMaxBytes the largest map output {@link GatherSmallOutputs} sends with others, 0 for none
     * @param tokens         stock's job tokens, which bind requests to connections
     * @param serverSocket   what a connection's server socket is named in bindings ({@link ChannelBindingCheck#TIPC})
     * @param httpPort       stock's HTTP/TCP shuffle port, which the UrlHash given to stock's handler signs
     */
    TipcShuffleChannelInitializer(ShuffleChannelInitializer stock, Set<String> identities, TipcShuffleMetrics metrics,
                                  long writeTimeoutMillis, long requestTimeoutMillis, int maxConnections,
                                  int gatherMaxBytes, JobTokenSecretManager tokens,
                                  ChannelBindingCheck.ServerSocket serverSocket, int httpPort) {
        this.stock = stock;
        this.tokens = tokens;
        this.serverSocket = serverSocket;
        this.httpPort = httpPort;
        this.limit = new ConnectionLimit(maxConnections);
        this.identities = Collections.unmodifiableSet(new HashSet<>(identities));
        this.metrics = metrics;
        this.writeTimeoutMillis = writeTimeoutMillis;
        this.requestTimeoutMillis = requestTimeoutMillis;
        this.gatherMaxBytes = GatherSmallOutputs.checked(gatherMaxBytes);
    }

    @Override
    protected void initChannel(SocketChannel ch) throws Exception {
        stock.initChannel(ch);
        ChannelPipeline pipeline = ch.pipeline();
        pipeline.addFirst("tipc-shutdown", new ShutdownBeforeClose());
        if (gatherMaxBytes > 0 && pipeline.get(SslHandler.class) == null) {
            // Nearest the encoder of the handlers here: the others see each map output's region and its promise.
            pipeline.addBefore(STOCK_HANDLER, "tipc-gather", new GatherSmallOutputs(gatherMaxBytes));
        }
        pipeline.addBefore(STOCK_HANDLER, "tipc-request-timeout", new RequestTimeout(requestTimeoutMillis));
        pipeline.addBefore(STOCK_HANDLER, "tipc-one-request", new OneRequestAtATime());
        pipeline.addBefore(STOCK_HANDLER, "tipc-identity", new ServerIdentity(identities));
        // One getsockname(2) per connection; every request on it is checked against its result.
        pipeline.addBefore(STOCK_HANDLER, "tipc-channel-binding",
                new ChannelBindingCheck(tokens, serverSocket.of(ch), httpPort));
        pipeline.addBefore(STOCK_HANDLER, "tipc-unauthorized", new UnauthorizedAnswer());
        pipeline.addBefore(STOCK_HANDLER, "tipc-metrics", new TransferMetrics(metrics));
        pipeline.addBefore(STOCK_HANDLER, "tipc-connection-limit", limit);
        if (pipeline.get(SslHandler.class) == null) {
            // Next to stock's handler: the metrics see only map outputs sent.
            pipeline.addBefore(STOCK_HANDLER, "tipc-end-at-large-output", new EndAtLargeOutput(metrics));
        }
        pipeline.addLast("tipc-stalled-reader", new StalledReaderTimeout(writeTimeoutMillis));
    }
}
