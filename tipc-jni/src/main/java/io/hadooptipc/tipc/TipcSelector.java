package io.hadooptipc.tipc;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An epoll event loop for TIPC channels, in the shape of {@link java.nio.channels.Selector}:
 * register non-blocking channels, {@link #select}, then handle {@link #selectedKeys()}.
 * Readiness is level-triggered, so a key stays selected while data remains.
 * One thread selects; other threads may only call {@link #wakeup()}.
 */
public final class TipcSelector implements Closeable {
    private final int epfd;
    private final int wakeupFd;
    private final Map<Integer, TipcSelectionKey> keysByFd = new HashMap<>();
    private final Set<TipcSelectionKey> selected = new HashSet<>();
    private int[] events = new int[2 * 64];
    private volatile boolean open = true;

    private TipcSelector(int epfd, int wakeupFd) {
        this.epfd = epfd;
        this.wakeupFd = wakeupFd;
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
        ensureOpen();
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

    /** Waits up to {@code timeoutMillis} (-1: forever) and returns the number of keys newly selected. */
    public int select(long timeoutMillis) throws IOException {
        ensureOpen();
        int timeout = (int) Math.min(timeoutMillis, Integer.MAX_VALUE);
        int n = TipcNative.epollWait(epfd, events, timeout);
        if (n == -TipcException.EINTR) { // a signal: report nothing selected, like Selector does
            return 0;
        }
        TipcChannel.check("epoll_wait", null, n);
        int added = 0;
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
        if (n == events.length / 2) {
            events = new int[events.length * 2]; // there may be more ready than we asked for
        }
        return added;
    }

    public int select() throws IOException {
        return select(-1);
    }

    public int selectNow() throws IOException {
        return select(0);
    }

    /** The keys selected so far; the caller removes the ones it handled. */
    public Set<TipcSelectionKey> selectedKeys() {
        return selected;
    }

    public Set<TipcSelectionKey> keys() {
        return Set.copyOf(keysByFd.values());
    }

    /** Makes a blocked {@link #select} return at once; callable from any thread. */
    public TipcSelector wakeup() {
        if (open) {
            TipcNative.eventfdSignal(wakeupFd);
        }
        return this;
    }

    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        List.copyOf(keysByFd.values()).forEach(TipcSelectionKey::cancel);
        open = false;
        TipcNative.close(wakeupFd);
        TipcChannel.check("close(epoll)", null, TipcNative.close(epfd));
    }

    void update(TipcSelectionKey key) {
        if (key.channel().isOpen()) {
            TipcNative.epollCtl(epfd, TipcNative.EPOLL_CTL_MOD, key.channel().fd, epollEvents(key.interestOps()));
        }
    }

    void deregister(TipcSelectionKey key) {
        keysByFd.remove(key.channel().fd, key);
        selected.remove(key);
        if (open && key.channel().isOpen()) {
            TipcNative.epollCtl(epfd, TipcNative.EPOLL_CTL_DEL, key.channel().fd, 0);
        }
    }

    private void ensureOpen() {
        if (!open) {
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
