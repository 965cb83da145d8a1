package io.hadooptipc.tipc;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;

/**
 * A connected TIPC socket: a byte stream (SOCK_STREAM) or, from
 * {@link #openSeqPacket()}, a sequence of messages whose boundaries are kept
 * (SOCK_SEQPACKET: each write is one message of at most {@link Tipc#MAX_MESSAGE_SIZE}
 * bytes, each read returns one message). Like {@link java.nio.channels.SocketChannel},
 * reads return -1 at end of stream and 0 when a non-blocking socket has nothing.
 */
public final class TipcSocketChannel extends TipcChannel implements ByteChannel {
    private static final int SOL_SOCKET_SO_ERROR = 4;

    private final Object readLock = new Object();
    private final Object writeLock = new Object();
    private volatile TipcAddress remote;
    private volatile boolean connected;

    private TipcSocketChannel(int fd, TipcAddress remote, boolean connected) {
        super(fd);
        this.remote = remote;
        this.connected = connected;
    }

    /** A byte-stream socket (SOCK_STREAM). */
    public static TipcSocketChannel open() throws IOException {
        return new TipcSocketChannel(openSocket(TipcNative.SOCK_STREAM), null, false);
    }

    /** A message socket with connection semantics (SOCK_SEQPACKET). */
    public static TipcSocketChannel openSeqPacket() throws IOException {
        return new TipcSocketChannel(openSocket(TipcNative.SOCK_SEQPACKET), null, false);
    }

    /** Opens a stream socket and connects it in blocking mode. */
    public static TipcSocketChannel open(TipcAddress remote) throws IOException {
        TipcSocketChannel channel = open();
        try {
            channel.connect(remote);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    static TipcSocketChannel accepted(int fd, TipcAddress peer) {
        return new TipcSocketChannel(fd, peer, true);
    }

    /**
     * Connects to a service (or to one socket). A blocking channel returns true once
     * connected; a non-blocking one may return false, and the caller completes the
     * connection with {@link #finishConnect()} when the socket becomes writable.
     */
    public boolean connect(TipcAddress address) throws IOException {
        byte[] sa = Sockaddr.encode(address);
        remote = address;
        int r;
        int descriptor = begin();
        try {
            r = TipcNative.connect(descriptor, sa);
        } finally {
            end();
        }
        ended(r);
        if (r == -TipcException.EINPROGRESS) {
            return false;
        }
        if (r == -TipcException.EINTR && isBlocking()) {
            return finishConnect(); // a signal ended the wait; the connect itself goes on
        }
        check("connect to", address, r);
        connected = true;
        return true;
    }

    /** Completes a non-blocking connect: true when connected, false while still pending. */
    public boolean finishConnect() throws IOException {
        ensureOpen();
        if (connected) {
            return true;
        }
        if (remote == null) {
            throw new NoConnectionPendingException();
        }
        if (!await(TipcNative.POLLOUT, isBlocking() ? -1 : 0, "poll")) {
            return false;
        }
        int[] error = new int[1];
        int r;
        int descriptor = begin();
        try {
            r = TipcNative.getsockopt(descriptor, TipcNative.SOL_SOCKET, SOL_SOCKET_SO_ERROR, error);
        } finally {
            end();
        }
        check("getsockopt(SO_ERROR)", remote, ended(r));
        if (error[0] != 0) {
            throw TipcException.of("connect to", remote, error[0]);
        }
        connected = true;
        return true;
    }

    public boolean isConnected() {
        return connected;
    }

    public boolean isConnectionPending() {
        return !connected && remote != null;
    }

    /** The address this channel connected to, or the accepted peer's socket address. */
    public TipcAddress getRemoteAddress() {
        return remote;
    }

    /**
     * Waits until a blocking read would not block (data, end of stream or an error is
     * pending), for at most {@code timeoutMillis} (-1: forever); false on timeout.
     * Blocking channels have no read timeout of their own: this is how callers bound one.
     */
    public boolean awaitReadable(int timeoutMillis) throws IOException {
        return await(TipcNative.POLLIN, timeoutMillis, "poll");
    }

    /**
     * Waits until a write would take bytes (or an error is pending), for at most
     * {@code timeoutMillis} (-1: forever); false on timeout. With a non-blocking
     * channel, this is how callers bound a write.
     */
    public boolean awaitWritable(int timeoutMillis) throws IOException {
        return await(TipcNative.POLLOUT, timeoutMillis, "poll");
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureConnected();
        synchronized (readLock) {
            if (!dst.hasRemaining()) {
                return 0;
            }
            int n;
            ByteBuffer b = readBuffer(dst);
            int descriptor = begin();
            try {
                n = afterRead(dst, b, TipcNative.recv(descriptor, b, b.position(), b.remaining()));
            } finally {
                end();
            }
            if (n <= 0) {
                ensureNotClosedDuringCall();
            }
            if (n == -TipcException.EAGAIN) {
                return 0;
            }
            return check("recv from", remote, n) == 0 ? -1 : n;
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureConnected();
        synchronized (writeLock) {
            int n;
            ByteBuffer b = writeBuffer(src);
            int descriptor = begin();
            try {
                n = afterWrite(src, TipcNative.send(descriptor, b, b.position(), b.remaining()));
            } finally {
                end();
            }
            if (n < 0) {
                ensureNotClosedDuringCall();
            }
            return n == -TipcException.EAGAIN ? 0 : check("send to", remote, n);
        }
    }

    /** Writes all of {@code src}, waiting for the socket to take it even when non-blocking. */
    public void writeFully(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            if (write(src) == 0) {
                await(TipcNative.POLLOUT, -1, "poll");
            }
        }
    }

    /**
     * Sends up to {@code count} bytes of a file from {@code position} with sendfile(2),
     * without copying them through the Java heap. Returns the bytes sent (0 when a
     * non-blocking socket is full).
     */
    public long transferFrom(FileDescriptor file, long position, long count) throws IOException {
        ensureConnected();
        synchronized (writeLock) {
            long n;
            int descriptor = begin();
            try {
                n = TipcNative.sendfile(descriptor, file, position, count);
            } finally {
                end();
            }
            if (n < 0) {
                ensureNotClosedDuringCall();
            }
            if (n == -TipcException.EAGAIN) {
                return 0;
            }
            if (n < 0) {
                throw TipcException.of("sendfile to", remote, (int) -n);
            }
            return n;
        }
    }

    @Override
    public TipcSocketChannel configureBlocking(boolean block) throws IOException {
        super.configureBlocking(block);
        return this;
    }

    private void ensureConnected() throws IOException {
        ensureOpen();
        if (!connected && (remote == null || !finishConnect())) {
            throw new NotYetConnectedException();
        }
    }

    @Override
    public String toString() {
        return "TipcSocketChannel[fd=" + fd + ", remote=" + remote + (isOpen() ? "" : ", closed") + "]";
    }
}
