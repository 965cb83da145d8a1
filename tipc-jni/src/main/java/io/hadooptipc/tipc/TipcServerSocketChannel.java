package io.hadooptipc.tipc;

import java.io.IOException;

/**
 * A listening TIPC socket. It is reached by the service names it binds: one socket
 * may bind several names and ranges, and several sockets (on any nodes) may bind the
 * same name, in which case TIPC spreads connections among them.
 */
public final class TipcServerSocketChannel extends TipcChannel {
    /** Backlog for {@link #bind(TipcAddress, TipcScope)}; TIPC itself caps the accept queue. */
    public static final int DEFAULT_BACKLOG = 1024;

    private final boolean seqPacket;
    private boolean listening;

    private TipcServerSocketChannel(int fd, boolean seqPacket) {
        super(fd);
        this.seqPacket = seqPacket;
    }

    /** Accepts byte-stream connections (SOCK_STREAM). */
    public static TipcServerSocketChannel open() throws IOException {
        return listening(openSocket(TipcNative.SOCK_STREAM), false);
    }

    /** Accepts message connections (SOCK_SEQPACKET). */
    public static TipcServerSocketChannel openSeqPacket() throws IOException {
        return listening(openSocket(TipcNative.SOCK_SEQPACKET), true);
    }

    /**
     * Wraps a new socket. It is made non-blocking for good: a thread blocked in the
     * kernel's accept on a TIPC socket is not woken by shutdown(2), so a blocking
     * {@link #accept()} waits in poll(2), which is, and a close from another thread can end it.
     */
    static TipcServerSocketChannel listening(int fd, boolean seqPacket) throws TipcException {
        int r = TipcNative.setBlocking(fd, false);
        if (r < 0) {
            TipcNative.close(fd);
            throw TipcException.of("fcntl(O_NONBLOCK)", null, -r);
        }
        return new TipcServerSocketChannel(fd, seqPacket);
    }

    /** Publishes a service address or range with cluster scope and starts listening. */
    public TipcServerSocketChannel bind(TipcAddress name) throws IOException {
        return bind(name, TipcScope.CLUSTER);
    }

    /** Publishes a service address or range with the given scope and starts listening. */
    public synchronized TipcServerSocketChannel bind(TipcAddress name, TipcScope scope) throws IOException {
        publish(name, scope);
        return listen();
    }

    /**
     * Starts listening, if not yet: a socket that binds no name yet accepts once it binds one
     * (through {@link Tipc#publish} when another library owns its descriptor).
     */
    public synchronized TipcServerSocketChannel listen() throws IOException {
        if (!listening) {
            int r;
            int descriptor = begin();
            try {
                r = TipcNative.listen(descriptor, DEFAULT_BACKLOG);
            } finally {
                end();
            }
            check("listen", null, ended(r));
            listening = true;
        }
        return this;
    }

    /** Withdraws a name published by {@link #bind}; the socket keeps its other names. */
    public TipcServerSocketChannel unbind(TipcAddress name, TipcScope scope) throws IOException {
        withdraw(name, scope);
        return this;
    }

    /**
     * Accepts a connection. Blocks in blocking mode (until a close from another thread
     * ends the wait with {@link java.nio.channels.AsynchronousCloseException}); returns
     * null when a non-blocking channel has none pending. The new channel is in blocking mode.
     */
    public TipcSocketChannel accept() throws IOException {
        byte[] peer = new byte[Sockaddr.SIZE];
        int r;
        while ((r = accept(peer)) == -TipcException.EAGAIN) {
            if (!isBlocking()) {
                return null;
            }
            await(TipcNative.POLLIN, -1, "poll");
            ensureNotClosedDuringCall();
        }
        check("accept", null, r);
        TipcAddress address;
        try {
            address = Sockaddr.decode(peer);
        } catch (RuntimeException e) {
            TipcNative.close(r);
            throw e;
        }
        return TipcSocketChannel.accepted(r, address);
    }

    /** One accept(2): the new descriptor, or -errno. */
    private int accept(byte[] peer) throws IOException {
        int r;
        int descriptor = begin();
        try {
            r = TipcNative.accept(descriptor, peer);
        } finally {
            end();
        }
        return ended(r);
    }

    /**
     * Hands this socket's descriptor over to another library, for example Netty's epoll transport,
     * which serves a listening descriptor given to {@code EpollServerSocketChannel(int)}. From then on
     * the caller owns the number and closes it (closing a listener withdraws its names); this channel
     * is closed and leaves the socket alone.
     *
     * @throws IllegalStateException when the channel is closed, registered with a selector or in a
     *                               call on another thread
     */
    public int detachDescriptor() {
        detach();
        return fd;
    }

    public boolean isSeqPacket() {
        return seqPacket;
    }

    @Override
    public TipcServerSocketChannel configureBlocking(boolean block) throws IOException {
        super.configureBlocking(block);
        return this;
    }

    @Override
    int setKernelBlocking(int descriptor, boolean block) {
        return 0;
    }

}
