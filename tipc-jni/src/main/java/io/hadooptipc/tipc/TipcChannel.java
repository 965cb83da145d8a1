package io.hadooptipc.tipc;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * What every AF_TIPC channel has: one socket descriptor, blocking or non-blocking
 * mode, socket options and registration with a {@link TipcSelector}. Any thread may
 * close a channel while others are inside calls on it (see {@link #close()}).
 */
public abstract class TipcChannel implements Channel {

    /** Heap buffers are copied through a direct buffer of at most this size per call. */
    private static final int MAX_TEMP_BUFFER = 256 * 1024;
    private static final ThreadLocal<ByteBuffer> TEMP = new ThreadLocal<>();
    /** The descriptor number: pass it to a system call only between {@link #begin()} and {@link #end()}. */
    final int fd;
    private final DescriptorState state;
    /** Closes the socket if this channel is dropped unclosed. */
    private final DroppedChannelCloser.Registration cleanable;
    private volatile boolean blocking = true;
    /** Written after each call: see {@link #end()}. */
    private volatile boolean callEnded;
    /** Keys of selectors this channel is registered with; each holds a call in flight on the descriptor. */
    private final List<TipcSelectionKey> keys = new ArrayList<>(1);

    TipcChannel(int fd) {
        this.fd = fd;
        this.state = new DescriptorState(new CloseDescriptor(fd));
        this.cleanable = DroppedChannelCloser.register(this, new ShutdownAndClose(state, fd));
    }

    // Named classes rather than lambdas here and below: a fresh JVM spins a class per lambda at its
    // first use, 10-15 ms apiece under emulation, and every reduce task opens channels (BootstrapFreeTest).

    /** Closes the descriptor for good: the state runs it after close and the last call out. */
    private static final class CloseDescriptor implements IntSupplier {
        private final int fd;

        CloseDescriptor(int fd) {
            this.fd = fd;
        }

        @Override
        public int getAsInt() {
            return TipcNative.close(fd);
        }
    }

    /**
     * What the closer of a dropped channel does to the socket, as {@link #close()} does. Holds no
     * reference to the channel, or the channel would never become unreachable.
     */
    private static final class ShutdownAndClose implements Runnable {
        private final DescriptorState state;
        private final int fd;

        ShutdownAndClose(DescriptorState state, int fd) {
            this.state = state;
            this.fd = fd;
        }

        @Override
        public void run() {
            if (state.closeAndEnter()) {
                TipcNative.shutdown(fd, TipcNative.SHUT_RDWR);
                state.exit();
            }
        }
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
        // A volatile write to this channel keeps it reachable until the call is out, so its
        // closer cannot shut the socket down under a call (Reference.reachabilityFence from Java 9).
        callEnded = true;
    }

    /** A call's result was no progress: if another thread closed the channel meanwhile, says so instead. */
    final void ensureNotClosedDuringCall() throws AsynchronousCloseException {
        if (state.isClosed()) {
            throw new AsynchronousCloseException();
        }
    }

    /**
     * Returns a system call's result, made between {@link #begin()} and {@link #end()}; a
     * failure caused by another thread closing the channel is an {@link AsynchronousCloseException}.
     */
    final int ended(int result) throws AsynchronousCloseException {
        if (result < 0) {
            ensureNotClosedDuringCall();
        }
        return result;
    }

    /** Sets O_NONBLOCK. Channels registered with a selector must be non-blocking. */
    public TipcChannel configureBlocking(boolean block) throws IOException {
        synchronized (keys) {
            if (block) {
                for (TipcSelectionKey key : keys) {
                    if (key.isValid()) {
                        throw new IllegalBlockingModeException();
                    }
                }
            }
            int r;
            int descriptor = begin();
            try {
                r = setKernelBlocking(descriptor, block);
            } finally {
                end();
            }
            check("fcntl(O_NONBLOCK)", null, ended(r));
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
        return address(false);
    }

    /**
     * The address the kernel reports for the socket this one is connected to: the peer's {ref, node}
     * identity, which no process can choose.
     */
    public TipcSocketAddress getPeerAddress() throws IOException {
        return address(true);
    }

    /** The peer's address or this socket's own; a flag, not a method reference, keeps lambdas off the client path. */
    private TipcSocketAddress address(boolean peer) throws IOException {
        byte[] sa = new byte[Sockaddr.SIZE];
        int r;
        int descriptor = begin();
        try {
            r = peer ? TipcNative.getpeername(descriptor, sa) : TipcNative.getsockname(descriptor, sa);
        } finally {
            end();
        }
        check(peer ? "getpeername" : "getsockname", null, ended(r));
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
        int r;
        int descriptor = begin();
        try {
            r = TipcNative.poll(descriptor, events, timeoutMillis);
        } finally {
            end();
        }
        return check(call, null, ended(r)) != 0;
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
            registered = Collections.unmodifiableList(new ArrayList<>(keys));
        }
        int closed;
        try {
            for (TipcSelectionKey key : registered) {
                key.cancel();
            }
            TipcNative.shutdown(fd, TipcNative.SHUT_RDWR);
        } finally {
            closed = state.exit();
            cleanable.run();
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
        cleanable.run(); // its action finds the state closed and does nothing
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd=" + fd + (isOpen() ? "" : ", closed") + "]";
    }

    /** Publishes a service name on this socket (bind(2)). */
    final synchronized void publish(TipcAddress name, TipcScope scope) throws IOException {
        bind(Sockaddr.encodeBind(name, scope), "bind", name);
    }

    /** Withdraws a published name; the kernel takes a negated scope as unbind. */
    final synchronized void withdraw(TipcAddress name, TipcScope scope) throws IOException {
        bind(Sockaddr.encodeUnbind(name, scope), "unbind", name);
    }

    private void bind(byte[] sa, String call, TipcAddress name) throws IOException {
        int r;
        int descriptor = begin();
        try {
            r = TipcNative.bind(descriptor, sa);
        } finally {
            end();
        }
        check(call, name, ended(r));
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

    /**
     * Where a read into {@code dst} lands: {@code dst} itself when direct, else this thread's
     * temporary direct buffer; the native call fills {@code position()..limit()}, then
     * {@link #afterRead} moves the bytes into {@code dst}.
     */
    static ByteBuffer readBuffer(ByteBuffer dst) {
        return dst.isDirect() ? dst : temp(dst.remaining());
    }

    /** Accounts for a read of {@code n} bytes (or -errno) into {@code direct}, from {@link #readBuffer}; returns n. */
    static int afterRead(ByteBuffer dst, ByteBuffer direct, int n) {
        if (n > 0) {
            if (direct == dst) {
                dst.position(dst.position() + n);
            } else {
                direct.limit(n);
                dst.put(direct);
            }
        }
        return n;
    }

    /** What a write of {@code src} sends from: {@code src} itself when direct, else a direct copy of its first bytes. */
    static ByteBuffer writeBuffer(ByteBuffer src) {
        if (src.isDirect()) {
            return src;
        }
        ByteBuffer direct = temp(src.remaining());
        ByteBuffer first = src.duplicate();
        first.limit(src.position() + direct.remaining());
        direct.put(first).flip();
        return direct;
    }

    /** Accounts for a write of {@code n} bytes (or -errno) from {@code src}; returns n. */
    static int afterWrite(ByteBuffer src, int n) {
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
        b.clear().limit(size);
        return b;
    }
}
