package io.hadooptipc.tipc;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A connectionless TIPC socket. {@link #open()} gives SOCK_RDM: reliable, ordered
 * messages of at most {@link Tipc#MAX_MESSAGE_SIZE} bytes, to a service, a socket, or
 * (multicast) every socket bound in a service range. Like
 * {@link java.nio.channels.DatagramChannel}, a message longer than the buffer given to
 * {@link #receive} is cut to fit and the rest discarded.
 */
public final class TipcDatagramChannel extends TipcChannel {
    private final Object readLock = new Object();
    private final Object writeLock = new Object();

    private TipcDatagramChannel(int fd) {
        super(fd);
    }

    /** Reliable datagrams (SOCK_RDM). */
    public static TipcDatagramChannel open() throws IOException {
        return new TipcDatagramChannel(openSocket(TipcNative.SOCK_RDM));
    }

    /** Unreliable datagrams (SOCK_DGRAM): dropped rather than returned under congestion. */
    public static TipcDatagramChannel openUnreliable() throws IOException {
        return new TipcDatagramChannel(openSocket(TipcNative.SOCK_DGRAM));
    }

    /** Publishes a service address or range, so that messages sent to it arrive here. */
    public TipcDatagramChannel bind(TipcAddress name, TipcScope scope) throws IOException {
        publish(name, scope);
        return this;
    }

    /** Withdraws a name published by {@link #bind}. */
    public TipcDatagramChannel unbind(TipcAddress name, TipcScope scope) throws IOException {
        withdraw(name, scope);
        return this;
    }

    /**
     * Sends the remaining bytes of {@code src} as one message. Returns the bytes sent,
     * or 0 when a non-blocking socket is congested (nothing was sent).
     */
    public int send(ByteBuffer src, TipcAddress target) throws IOException {
        byte[] sa = Sockaddr.encode(target);
        synchronized (writeLock) {
            int n;
            ByteBuffer b = writeBuffer(src);
            int descriptor = begin();
            try {
                n = afterWrite(src, TipcNative.sendto(descriptor, b, b.position(), b.remaining(), sa));
            } finally {
                end();
            }
            if (n < 0) {
                ensureNotClosedDuringCall();
            }
            return n == -TipcException.EAGAIN ? 0 : check("sendto", target, n);
        }
    }

    /**
     * Receives one message into {@code dst} and returns its sender, or null when a
     * non-blocking socket has none.
     */
    public TipcSocketAddress receive(ByteBuffer dst) throws IOException {
        byte[] sa = new byte[Sockaddr.SIZE];
        synchronized (readLock) {
            int n;
            ByteBuffer b = readBuffer(dst);
            int descriptor = begin();
            try {
                n = afterRead(dst, b, TipcNative.recvfrom(descriptor, b, b.position(), b.remaining(), sa));
            } finally {
                end();
            }
            if (n < 0) {
                ensureNotClosedDuringCall();
            }
            if (n == -TipcException.EAGAIN) {
                return null;
            }
            check("recvfrom", null, n);
            return (TipcSocketAddress) Sockaddr.decode(sa);
        }
    }

    @Override
    public TipcDatagramChannel configureBlocking(boolean block) throws IOException {
        super.configureBlocking(block);
        return this;
    }

}
