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
        return new TipcServerSocketChannel(openSocket(TipcNative.SOCK_STREAM), false);
    }

    /** Accepts message connections (SOCK_SEQPACKET). */
    public static TipcServerSocketChannel openSeqPacket() throws IOException {
        return new TipcServerSocketChannel(openSocket(TipcNative.SOCK_SEQPACKET), true);
    }

    /** Publishes a service address or range with cluster scope and starts listening. */
    public TipcServerSocketChannel bind(TipcAddress name) throws IOException {
        return bind(name, TipcScope.CLUSTER);
    }

    /** Publishes a service address or range with the given scope and starts listening. */
    public synchronized TipcServerSocketChannel bind(TipcAddress name, TipcScope scope) throws IOException {
        publish(name, scope);
        if (!listening) {
            check("listen", name, TipcNative.listen(fd, DEFAULT_BACKLOG));
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
     * Accepts a connection. Blocks in blocking mode; returns null when a non-blocking
     * channel has none pending. The new channel is in blocking mode.
     */
    public TipcSocketChannel accept() throws IOException {
        ensureOpen();
        byte[] peer = new byte[Sockaddr.SIZE];
        int r = TipcNative.accept(fd, peer);
        if (r == -TipcException.EAGAIN) {
            return null;
        }
        check("accept", null, r);
        return TipcSocketChannel.accepted(r, Sockaddr.decode(peer));
    }

    public boolean isSeqPacket() {
        return seqPacket;
    }

    @Override
    public TipcServerSocketChannel configureBlocking(boolean block) throws IOException {
        super.configureBlocking(block);
        return this;
    }

}
