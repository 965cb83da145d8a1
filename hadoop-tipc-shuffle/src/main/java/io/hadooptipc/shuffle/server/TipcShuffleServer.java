package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcSocketAddress;
import io.hadooptipc.tipc.TipcSocketOptions;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The TIPC side of the shuffle server: a listener bound to this node's shuffle names, served by
 * Netty's epoll transport, which takes the listening descriptor as it would a TCP one. Netty comes
 * from the NodeManager's class path, where stock's shuffle already needs it.
 */
public final class TipcShuffleServer implements Closeable {
    /** What the names of the server's threads begin with (the testbed's CPU probes find them by it). */
    public static final String THREAD_NAME = "TIPC shuffle";
    private static final long STOP_SECONDS = 10;

    private final EventLoopGroup loops;
    private final Channel listener;
    private final TipcSocketAddress listenerAddress;

    private TipcShuffleServer(EventLoopGroup loops, Channel listener, TipcSocketAddress listenerAddress) {
        this.loops = loops;
        this.listener = listener;
        this.listenerAddress = listenerAddress;
    }

    /**
     * Listens on every name, each in its own scope, and serves connections through {@code pipeline};
     * {@code cap} closes those accepted over it.
     */
    static TipcShuffleServer start(int serviceType, List<ShuffleServiceName> names, OpenConnectionCap cap,
                                   ChannelInitializer<SocketChannel> pipeline, int threads) throws IOException {
        if (!Epoll.isAvailable()) {
            throw new IOException("Netty's epoll transport, which serves the TIPC listener, is unavailable: "
                    + Epoll.unavailabilityCause());
        }
        TipcServerSocketChannel bound = bind(serviceType, names);
        TipcSocketAddress address;
        EventLoopGroup loops;
        try {
            address = bound.getLocalAddress();
            loops = new EpollEventLoopGroup(threads, new DefaultThreadFactory(THREAD_NAME, true));
        } catch (IOException | RuntimeException | Error e) {
            bound.close();
            throw e;
        }
        int fd = bound.detachDescriptor();
        try {
            // register() rather than bind(): the socket is bound and listening already. Level-triggered:
            // TIPC reports a peer's close as EPOLLIN|EPOLLHUP without EPOLLRDHUP, so an edge-triggered
            // channel that read the last data and the close in one wake-up would never look again.
            // Netty's TCP_NODELAY is an IPPROTO_TCP option, which a TIPC socket ignores: TIPC's own, by number.
            TipcSocketOptions.Native nodelay = TipcSocketOptions.nativeOf(TipcSocketOptions.NODELAY);
            Channel listener = new ServerBootstrap().group(loops)
                    .channelFactory((ChannelFactory<ServerChannel>) () -> new EpollServerSocketChannel(fd))
                    .childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED)
                    .childOption(new IntegerUnixChannelOption("TIPC_NODELAY", nodelay.level(), nodelay.name()), 1)
                    .handler(cap)
                    .childHandler(pipeline)
                    .register().sync().channel();
            return new TipcShuffleServer(loops, listener, address);
        } catch (Exception e) { // a failed registration closed the listener
            loops.shutdownGracefully(0, STOP_SECONDS, TimeUnit.SECONDS);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw e instanceof IOException ? (IOException) e
                    : new IOException("TIPC shuffle server did not start: " + e, e);
        }
    }

    private static TipcServerSocketChannel bind(int serviceType, List<ShuffleServiceName> names) throws IOException {
        TipcServerSocketChannel listener = TipcServerSocketChannel.open();
        try {
            for (ShuffleServiceName name : names) {
                listener.bind(name.tipcAddress(serviceType), name.scope());
            }
            return listener.listen();
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /** The listener's {ref, node}: the socket the topology service reports as binding this server's names. */
    TipcSocketAddress listenerAddress() {
        return listenerAddress;
    }

    /** Withdraws the names and closes every connection, waiting up to 10 s for responses under way. */
    @Override
    public void close() throws IOException {
        try {
            listener.close().await(STOP_SECONDS, TimeUnit.SECONDS);
            loops.shutdownGracefully(0, STOP_SECONDS, TimeUnit.SECONDS).await(STOP_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted stopping the TIPC shuffle server", e);
        }
    }
}
