package io.hadooptipc.tipc;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A channel's registration with a {@link TipcSelector}. Operations use the
 * {@link SelectionKey} constants (OP_READ, OP_WRITE, OP_ACCEPT, OP_CONNECT).
 */
public final class TipcSelectionKey {
    private final TipcSelector selector;
    private final TipcChannel channel;
    private volatile Object attachment;
    private volatile int interestOps;
    private volatile int readyOps;
    private final AtomicBoolean valid = new AtomicBoolean(true);

    TipcSelectionKey(TipcSelector selector, TipcChannel channel, int interestOps, Object attachment) {
        this.selector = selector;
        this.channel = channel;
        this.interestOps = interestOps;
        this.attachment = attachment;
    }

    public TipcChannel channel() {
        return channel;
    }

    public TipcSelector selector() {
        return selector;
    }

    public int interestOps() {
        return interestOps;
    }

    /**
     * Changes the operations selected for, from any thread; the next {@link TipcSelector#select}
     * applies the change (a select in progress is woken to do so).
     */
    public TipcSelectionKey interestOps(int ops) {
        ensureValid();
        if (ops != interestOps) {
            interestOps = ops;
            selector.interestChanged(this);
        }
        return this;
    }

    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    void readyOps(int ops) {
        readyOps = ops;
    }

    public boolean isReadable() {
        return (readyOps() & SelectionKey.OP_READ) != 0;
    }

    public boolean isWritable() {
        return (readyOps() & SelectionKey.OP_WRITE) != 0;
    }

    public boolean isAcceptable() {
        return (readyOps() & SelectionKey.OP_ACCEPT) != 0;
    }

    public boolean isConnectable() {
        return (readyOps() & SelectionKey.OP_CONNECT) != 0;
    }

    public Object attachment() {
        return attachment;
    }

    public Object attach(Object ob) {
        Object previous = attachment;
        attachment = ob;
        return previous;
    }

    public boolean isValid() {
        return valid.get();
    }

    /**
     * Deregisters the channel, from any thread; the channel itself stays open. The selecting
     * thread removes the key from the selector's sets at its next select.
     */
    public void cancel() {
        if (valid.compareAndSet(true, false)) {
            selector.cancelled(this);
        }
    }

    void invalidate() {
        valid.set(false);
    }

    private void ensureValid() {
        if (!valid.get()) {
            throw new CancelledKeyException();
        }
    }
}
