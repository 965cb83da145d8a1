package io.hadooptipc.tipc;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What every AF_TIPC channel has: one socket descriptor, blocking or non-blocking
 * mode, socket options and registration with a {@link TipcSelector}. Any thread may
 * close a channel while others are inside calls on it (see {@link #close()}).
 */
public abstract sealed class TipcChannel implements Channel
        permits TipcSocketChannel, TipcServerSocketChannel, TipcDatagramChannel, TipcTopologyChannel {

    /** Heap buffers are copied through a direct buffer of at most this size per call. */
    private static final int MAX_TEMP_BUFFER = 256 * 1024;
    private static final ThreadLocal<ByteBuffer> TEMP = new ThreadLocal<>();
    /** Closes the sockets of channels nobody closed before dropping them. */
    private static final Cleaner CLEANER = Cleaner.create();

    /** The descriptor number: pass it to a system call only between {@link #begin()} and {@link #end()}. */
    final int fd;
    private final DescriptorState state;
    private final Cleaner.Cleanable cleanable;
    private volatile boolean blocking = true;
    /** Keys of selectors this channel is registered with; each holds a call in flight on the descriptor. */
    private final List<TipcSelectionKey> keys = new ArrayList<>(1);

    TipcChannel(int fd) {
        this.fd = fd;
        this.state = new DescriptorState(() -> TipcNative.close(fd));
        this.cleanable = CLEANER.register(this, shutdownAndClose(state, fd));
    }

    /**
     * What both {@link #close()} and the cleaner of a dropped channel do to the socket. Static, so
     * that the cleaner's action holds no reference to the channel.
     */
    private static Runnable shutdownAndClose(DescriptorState state, int fd) {
        return () -> {
            if (state.closeAndEnter()) {
                TipcNative.shutdown(fd, TipcNative.SHUT_RDWR);
                state.exit();
            }
        };
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
        if (state.isClosed()) {
            throw new ClosedChannelException();
        }
    }

    /**
     * Counts a system call in and returns the descriptor: until {@link #end()}, a close from
     * another thread leaves the number open (and this socket's), so the call cannot reach a
     * socket opened meanwhile.
     */
    final int begin() throws ClosedChannelException {
        if (!state.enter()) {
            throw new ClosedChannelException();
        }
        return fd;
    }

    /** Counts a call out; the last call out of a closed channel closes the descriptor. */
    final void end() {
        state.exit();
        Reference.reachabilityFence(this);
    }

    /** A call's result was no progress: if another thread closed the channel meanwhile, says so instead. */
    final void ensureNotClosedDuringCall() throws AsynchronousCloseException {
        if (state.isClosed()) {
            throw new AsynchronousCloseException();
        }
    }

    /** One system call on the descriptor, returning its result (or -errno). */
    @FunctionalInterface
    interface Call {
        int on(int fd);
    }

    /**
     * Makes one system call between {@link #begin()} and {@link #end()} and returns its
     * result; a failure caused by another thread closing the channel is an
     * {@link AsynchronousCloseException}.
     */
    final int call(Call call) throws ClosedChannelException {
        int r;
        int descriptor = begin();
        try {
            r = call.on(descriptor);
        } finally {
            end();
        }
        if (r < 0) {
            ensureNotClosedDuringCall();
        }
        return r;
    }

    /** Sets O_NONBLOCK. Channels registered with a selector must be non-blocking. */
    public TipcChannel configureBlocking(boolean block) throws IOException {
        synchronized (keys) {
            if (block && keys.stream().anyMatch(TipcSelectionKey::isValid)) {
                throw new IllegalBlockingModeException();
            }
            check("fcntl(O_NONBLOCK)", null, call(descriptor -> setKernelBlocking(descriptor, block)));
            blocking = block;
        }
        return this;
    }

    /** Applies blocking mode to the socket itself; a channel that waits in poll(2) instead keeps it non-blocking. */
    int setKernelBlocking(int descriptor, boolean block) {
        return TipcNative.setBlocking(descriptor, block);
    }

    public boolean isBlocking() {
        return blocking;
    }

    /** The address the kernel reports for this socket: its {ref, node} identity. */
    public TipcSocketAddress getLocalAddress() throws IOException {
        byte[] sa = new byte[Sockaddr.SIZE];
        check("getsockname", null, call(descriptor -> TipcNative.getsockname(descriptor, sa)));
        return (TipcSocketAddress) Sockaddr.decode(sa);
    }

    public <T> TipcChannel setOption(SocketOption<T> name, T value) throws IOException {
        TipcSocketOptions.set(this, name, value);
        return this;
    }

    public <T> T getOption(SocketOption<T> name) throws IOException {
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
        return check(call, null, call(descriptor -> TipcNative.poll(descriptor, events, timeoutMillis))) != 0;
    }

    @Override
    public boolean isOpen() {
        return !state.isClosed();
    }

    /**
     * Shuts the socket down and closes it; callable from any thread. The shutdown matters
     * twice: a thread blocked in a call on this channel wakes up (and gets an
     * {@link AsynchronousCloseException}), and a connected peer reads a clean end of
     * stream, where TIPC treats a bare close(2) as an abort (the peer's reads fail with
     * ECONNRESET). The descriptor itself is closed when the last call in flight on it
     * returns, and when the selectors it was registered with have let go of it.
     */
    @Override
    public void close() throws IOException {
        List<TipcSelectionKey> registered;
        synchronized (keys) {
            if (!state.closeAndEnter()) {
                return;
            }
            registered = List.copyOf(keys);
        }
        int closed;
        try {
            registered.forEach(TipcSelectionKey::cancel);
            TipcNative.shutdown(fd, TipcNative.SHUT_RDWR);
        } finally {
            closed = state.exit();
            cleanable.clean();
        }
        check("close", null, closed);
    }

    /** Gives up the descriptor without closing it; see {@link TipcServerSocketChannel#detachDescriptor()}. */
    final void detach() {
        synchronized (keys) {
            if (!state.detach()) {
                throw new IllegalStateException(this + " is closed, registered with a selector or in a call");
            }
        }
        cleanable.clean(); // its action finds the state closed and does nothing
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd=" + fd + (isOpen() ? "" : ", closed") + "]";
    }

    /** Publishes a service name on this socket (bind(2)). */
    final synchronized void publish(TipcAddress name, TipcScope scope) throws IOException {
        byte[] sa = Sockaddr.encodeBind(name, scope);
        check("bind", name, call(descriptor -> TipcNative.bind(descriptor, sa)));
    }

    /** Withdraws a published name; the kernel takes a negated scope as unbind. */
    final synchronized void withdraw(TipcAddress name, TipcScope scope) throws IOException {
        byte[] sa = Sockaddr.encodeUnbind(name, scope);
        check("unbind", name, call(descriptor -> TipcNative.bind(descriptor, sa)));
    }

    /** Records a selector's key; the key holds a call in flight until {@link #removeKey}. */
    void addKey(TipcSelectionKey key) throws IOException {
        synchronized (keys) {
            if (blocking) {
                throw new IllegalBlockingModeException();
            }
            begin();
            keys.add(key);
        }
    }

    /** The selector has taken the descriptor out of its epoll set. */
    void removeKey(TipcSelectionKey key) {
        synchronized (keys) {
            keys.remove(key);
        }
        end();
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
