package io.hadooptipc.tipc;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What every AF_TIPC channel has: one socket descriptor, blocking or non-blocking
 * mode, socket options and registration with a {@link TipcSelector}.
 */
public abstract sealed class TipcChannel implements Channel
        permits TipcSocketChannel, TipcServerSocketChannel, TipcDatagramChannel, TipcTopologyChannel {

    /** Heap buffers are copied through a direct buffer of at most this size per call. */
    private static final int MAX_TEMP_BUFFER = 256 * 1024;
    private static final ThreadLocal<ByteBuffer> TEMP = new ThreadLocal<>();

    final int fd;
    private volatile boolean open = true;
    private volatile boolean blocking = true;
    private final List<TipcSelectionKey> keys = new ArrayList<>(1);

    TipcChannel(int fd) {
        this.fd = fd;
    }

    /** Opens a socket of the given type, failing with the reason when the kernel has no TIPC. */
    static int openSocket(int type) throws TipcException {
        TipcNative.ensureLoaded();
        return check("socket(AF_TIPC)", null, TipcNative.socket(type));
    }

    /** Returns a non-negative syscall result, or throws for {@code -errno}. */
    static int check(String call, SocketAddress address, int result) throws TipcException {
        if (result < 0) {
            throw TipcException.of(call, address, -result);
        }
        return result;
    }

    final void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }

    /** Sets O_NONBLOCK. Channels registered with a selector must be non-blocking. */
    public TipcChannel configureBlocking(boolean block) throws IOException {
        ensureOpen();
        synchronized (keys) {
            if (block && !keys.isEmpty()) {
                throw new IllegalBlockingModeException();
            }
            check("fcntl(O_NONBLOCK)", null, TipcNative.setBlocking(fd, block));
            blocking = block;
        }
        return this;
    }

    public boolean isBlocking() {
        return blocking;
    }

    /** The address the kernel reports for this socket: its {ref, node} identity. */
    public TipcSocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        byte[] sa = new byte[Sockaddr.SIZE];
        check("getsockname", null, TipcNative.getsockname(fd, sa));
        return (TipcSocketAddress) Sockaddr.decode(sa);
    }

    public <T> TipcChannel setOption(SocketOption<T> name, T value) throws IOException {
        ensureOpen();
        TipcSocketOptions.set(this, name, value);
        return this;
    }

    public <T> T getOption(SocketOption<T> name) throws IOException {
        ensureOpen();
        return TipcSocketOptions.get(this, name);
    }

    public Set<SocketOption<?>> supportedOptions() {
        return TipcSocketOptions.SUPPORTED;
    }

    /**
     * Waits until the socket is ready for {@code events} (POLLIN/POLLOUT) or the
     * timeout passes; returns false on timeout.
     */
    final boolean await(int events, int timeoutMillis, String call) throws IOException {
        ensureOpen();
        return check(call, null, TipcNative.poll(fd, events, timeoutMillis)) != 0;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Shuts the socket down, then closes it. The shutdown matters twice: a thread
     * blocked in this channel wakes up, and a connected peer reads a clean end of
     * stream, where TIPC treats a bare close(2) as an abort (the peer's reads fail
     * with ECONNRESET).
     */
    @Override
    public void close() throws IOException {
        List<TipcSelectionKey> registered;
        synchronized (keys) {
            if (!open) {
                return;
            }
            open = false;
            registered = List.copyOf(keys);
        }
        registered.forEach(TipcSelectionKey::cancel);
        TipcNative.shutdown(fd, TipcNative.SHUT_RDWR);
        check("close", null, TipcNative.close(fd));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd=" + fd + (isOpen() ? "" : ", closed") + "]";
    }

    /** Publishes a service name on this socket (bind(2)). */
    final synchronized void publish(TipcAddress name, TipcScope scope) throws IOException {
        ensureOpen();
        check("bind", name, TipcNative.bind(fd, Sockaddr.encodeBind(name, scope)));
    }

    /** Withdraws a published name; the kernel takes a negated scope as unbind. */
    final synchronized void withdraw(TipcAddress name, TipcScope scope) throws IOException {
        ensureOpen();
        check("unbind", name, TipcNative.bind(fd, Sockaddr.encodeUnbind(name, scope)));
    }

    void addKey(TipcSelectionKey key) throws IOException {
        synchronized (keys) {
            ensureOpen();
            if (blocking) {
                throw new IllegalBlockingModeException();
            }
            keys.add(key);
        }
    }

    void removeKey(TipcSelectionKey key) {
        synchronized (keys) {
            keys.remove(key);
        }
    }

    /** One native read or write on a direct region: returns its syscall result. */
    @FunctionalInterface
    interface DirectIo {
        int apply(ByteBuffer direct, int position, int length);
    }

    /**
     * Reads into {@code dst} with one syscall, through a temporary direct buffer when
     * {@code dst} is on the heap. Returns the syscall result (bytes, or -errno).
     */
    static int readInto(ByteBuffer dst, DirectIo io) {
        if (dst.isDirect()) {
            int n = io.apply(dst, dst.position(), dst.remaining());
            if (n > 0) {
                dst.position(dst.position() + n);
            }
            return n;
        }
        ByteBuffer tmp = temp(dst.remaining());
        int n = io.apply(tmp, 0, tmp.remaining());
        if (n > 0) {
            dst.put(tmp.limit(n));
        }
        return n;
    }

    /** Writes from {@code src} with one syscall; see {@link #readInto}. */
    static int writeFrom(ByteBuffer src, DirectIo io) {
        ByteBuffer direct = src;
        if (!src.isDirect()) {
            direct = temp(src.remaining());
            direct.put(src.duplicate().limit(src.position() + direct.remaining())).flip();
        }
        int n = io.apply(direct, direct.position(), direct.remaining());
        if (n > 0) {
            src.position(src.position() + n);
        }
        return n;
    }

    private static ByteBuffer temp(int wanted) {
        int size = Math.min(Math.max(wanted, 1), MAX_TEMP_BUFFER);
        ByteBuffer b = TEMP.get();
        if (b == null || b.capacity() < size) {
            b = ByteBuffer.allocateDirect(Math.max(size, 16 * 1024));
            TEMP.set(b);
        }
        return b.clear().limit(size);
    }
}
