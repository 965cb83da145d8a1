package io.hadooptipc.tipc;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntSupplier;

/**
 * An epoll event loop for TIPC channels, in the shape of {@link java.nio.channels.Selector}:
 * register non-blocking channels, {@link #select}, then handle {@link #selectedKeys()}.
 * Readiness is level-triggered, so a key stays selected while data remains.
 *
 * <p>One thread selects and handles the selected keys. Any thread may register, cancel a
 * key, change its interest, close a channel, {@link #wakeup()} or {@link #close()}:
 * cancellations and interest changes are queued and applied by the selecting thread
 * (woken if it is waiting), as the JDK's selectors do, so only that thread changes the
 * selector's sets while it uses them. A registered channel's descriptor stays open until
 * the selecting thread has taken it out of the epoll set.
 */
public final class TipcSelector implements Closeable {
    private final int epfd;
    private final int wakeupFd;
    private final DescriptorState state;
    /** Held while the key sets or the epoll set change; never during epoll_wait. */
    private final Object lock = new Object();
    private final Map<Integer, TipcSelectionKey> keysByFd = new ConcurrentHashMap<>();
    private final Set<TipcSelectionKey> selected = new HashSet<>();
    private final Queue<TipcSelectionKey> cancelled = new ConcurrentLinkedQueue<>();
    private final Queue<TipcSelectionKey> changed = new ConcurrentLinkedQueue<>();
    /** A thread is in select: a change queued by another thread must wake it. */
    private volatile boolean selecting;
    private int[] events = new int[2 * 64];

    private TipcSelector(int epfd, int wakeupFd) {
        this.epfd = epfd;
        this.wakeupFd = wakeupFd;
        this.state = new DescriptorState(new Release());
    }

    public static TipcSelector open() throws IOException {
        TipcNative.ensureLoaded();
        int epfd = TipcChannel.check("epoll_create1", null, TipcNative.epollCreate());
        int wakeupFd = TipcNative.eventfd();
        if (wakeupFd < 0) {
            TipcNative.close(epfd);
            throw TipcException.of("eventfd", null, -wakeupFd);
        }
        int r = TipcNative.epollCtl(epfd, TipcNative.EPOLL_CTL_ADD, wakeupFd, TipcNative.EPOLLIN);
        if (r < 0) {
            TipcNative.close(epfd);
            TipcNative.close(wakeupFd);
            throw TipcException.of("epoll_ctl(ADD eventfd)", null, -r);
        }
        return new TipcSelector(epfd, wakeupFd);
    }

    /** Registers a non-blocking channel for the given {@link SelectionKey} operations. */
    public TipcSelectionKey register(TipcChannel channel, int ops, Object attachment) throws IOException {
        enter();
        try {
            synchronized (lock) {
                applyCancellations(); // a key cancelled but not yet removed may hold this channel's number
                TipcSelectionKey key = new TipcSelectionKey(this, channel, ops, attachment);
                channel.addKey(key);
                if (keysByFd.putIfAbsent(channel.fd, key) != null) {
                    channel.removeKey(key);
                    throw new IllegalStateException(channel + " is already registered with this selector");
                }
                int r = TipcNative.epollCtl(epfd, TipcNative.EPOLL_CTL_ADD, channel.fd, epollEvents(ops));
                if (r < 0) {
                    keysByFd.remove(channel.fd);
                    channel.removeKey(key);
                    throw TipcException.of("epoll_ctl(ADD)", null, -r);
                }
                return key;
            }
        } finally {
            state.exit();
        }
    }

    /**
     * Waits up to {@code timeoutMillis} (-1: forever) and returns the number of keys newly
     * selected. Returns early after {@link #wakeup()}, a close, or a change queued by another thread.
     */
    public int select(long timeoutMillis) throws IOException {
        enter();
        try {
            selecting = true;
            synchronized (lock) {
                applyCancellations();
                applyInterestChanges();
            }
            int timeout = (int) Math.min(timeoutMillis, Integer.MAX_VALUE);
            int n = TipcChannel.check("epoll_wait", null, TipcNative.epollWait(epfd, events, timeout));
            selecting = false;
            int added = 0;
            synchronized (lock) {
                applyCancellations();
                for (int i = 0; i < n; i++) {
                    int fd = events[2 * i];
                    if (fd == wakeupFd) {
                        TipcNative.eventfdDrain(wakeupFd);
                        continue;
                    }
                    TipcSelectionKey key = keysByFd.get(fd);
                    if (key == null || !key.isValid()) {
                        continue;
                    }
                    int ready = readyOps(key.interestOps(), events[2 * i + 1]);
                    if (ready != 0) {
                        key.readyOps(ready);
                        if (selected.add(key)) {
                            added++;
                        }
                    }
                }
            }
            if (n == events.length / 2) {
                events = new int[events.length * 2]; // there may be more ready than we asked for
            }
            return added;
        } finally {
            selecting = false;
            state.exit();
        }
    }

    public int select() throws IOException {
        return select(-1);
    }

    public int selectNow() throws IOException {
        return select(0);
    }

    /** The keys selected so far, for the selecting thread; it removes the ones it handled. */
    public Set<TipcSelectionKey> selectedKeys() {
        return selected;
    }

    public Set<TipcSelectionKey> keys() {
        return Collections.unmodifiableSet(new HashSet<>(keysByFd.values()));
    }

    /** Makes a blocked {@link #select} return at once (or the next one, if none is blocked); callable from any thread. */
    public TipcSelector wakeup() {
        if (state.enter()) {
            try {
                TipcNative.eventfdSignal(wakeupFd);
            } finally {
                state.exit();
            }
        }
        return this;
    }

    public boolean isOpen() {
        return !state.isClosed();
    }

    /**
     * Closes the selector from any thread: a select in progress returns, later calls throw
     * {@link ClosedSelectorException}, and once no thread is inside the selector any more
     * its keys are invalid and its channels' descriptors are let go (the channels stay open).
     */
    @Override
    public void close() throws IOException {
        if (!state.closeAndEnter()) {
            return;
        }
        int closed;
        try {
            TipcNative.eventfdSignal(wakeupFd);
        } finally {
            closed = state.exit();
        }
        TipcChannel.check("close(epoll)", null, closed);
    }

    /** Queues a cancelled key for the selecting thread. */
    void cancelled(TipcSelectionKey key) {
        cancelled.add(key);
        if (selecting) {
            wakeup();
        }
    }

    /** Queues a key whose interest changed, for the selecting thread. */
    void interestChanged(TipcSelectionKey key) {
        changed.add(key);
        if (selecting) {
            wakeup();
        }
    }

    /**
     * Takes cancelled keys out of the sets and the epoll set, then lets go of their channels'
     * descriptors. Until then the key holds its channel's descriptor open, so EPOLL_CTL_DEL
     * always names the registered socket, and any error it reports is a real one.
     */
    private void applyCancellations() throws TipcException {
        TipcException failure = null;
        for (TipcSelectionKey key; (key = cancelled.poll()) != null; ) {
            if (!keysByFd.remove(key.channel().fd, key)) {
                continue;
            }
            selected.remove(key);
            int r = TipcNative.epollCtl(epfd, TipcNative.EPOLL_CTL_DEL, key.channel().fd, 0);
            key.channel().removeKey(key);
            if (r < 0 && failure == null) {
                failure = TipcException.of("epoll_ctl(DEL)", null, -r);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Applies queued interest changes of keys still valid (a valid key's channel descriptor is held open). */
    private void applyInterestChanges() throws TipcException {
        for (TipcSelectionKey key; (key = changed.poll()) != null; ) {
            if (key.isValid()) {
                TipcChannel.check("epoll_ctl(MOD)", null, TipcNative.epollCtl(epfd, TipcNative.EPOLL_CTL_MOD,
                        key.channel().fd, epollEvents(key.interestOps())));
            }
        }
    }

    /** A class of its own, not a method reference: tipc-jni spins no lambda classes (BootstrapFreeTest). */
    private final class Release implements IntSupplier {
        @Override
        public int getAsInt() {
            return release();
        }
    }

    /** Runs once, when the selector is closed and no thread is inside it any more. */
    private int release() {
        synchronized (lock) {
            for (TipcSelectionKey key : keysByFd.values()) {
                key.invalidate();
                key.channel().removeKey(key); // closing epfd empties the epoll set: no DEL needed
            }
            keysByFd.clear();
            cancelled.clear();
            changed.clear();
        }
        TipcNative.close(wakeupFd);
        return TipcNative.close(epfd);
    }

    private void enter() {
        if (!state.enter()) {
            throw new ClosedSelectorException();
        }
    }

    static int epollEvents(int ops) {
        int ev = 0;
        if ((ops & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
            ev |= TipcNative.EPOLLIN;
        }
        if ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
            ev |= TipcNative.EPOLLOUT;
        }
        return ev;
    }

    /** Errors and hang-ups make every interested operation ready, so the next call reports them. */
    static int readyOps(int interest, int epollEvents) {
        if ((epollEvents & (TipcNative.EPOLLERR | TipcNative.EPOLLHUP)) != 0) {
            return interest;
        }
        int ready = 0;
        if ((epollEvents & TipcNative.EPOLLIN) != 0) {
            ready |= interest & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT);
        }
        if ((epollEvents & TipcNative.EPOLLOUT) != 0) {
            ready |= interest & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT);
        }
        return ready;
    }
}
