package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcException;
import io.hadooptipc.tipc.TipcSelectionKey;
import io.hadooptipc.tipc.TipcSelector;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcSocketChannel;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The shuffle server's sockets over AF_TIPC: a listener bound to this node's shuffle names, and TipcSelectors. */
final class TipcServerTransport implements ServerTransport {
    private static final int ENOMEM = 12;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;
    private static final int ENOBUFS = 105;

    private final TipcServerSocketChannel listener;

    private TipcServerTransport(TipcServerSocketChannel listener) {
        this.listener = listener;
    }

    /** Listens on every name, each in its own scope. */
    static TipcServerTransport bind(int serviceType, List<ShuffleServiceName> names) throws IOException {
        TipcServerSocketChannel listener = TipcServerSocketChannel.open();
        try {
            for (ShuffleServiceName name : names) {
                listener.bind(name.tipcAddress(serviceType), name.scope());
            }
            listener.configureBlocking(false);
            return new TipcServerTransport(listener);
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    @Override
    public Stream accept() throws IOException {
        TipcSocketChannel channel;
        try {
            channel = listener.accept();
        } catch (TipcException e) {
            int errno = e.errno();
            throw errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM ? new OutOfResources(e) : e;
        }
        if (channel == null) {
            return null;
        }
        try {
            channel.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return new TipcStream(channel);
    }

    @Override
    public Selector openSelector() throws IOException {
        return new TipcSelectors(TipcSelector.open());
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }

    private record TipcStream(TipcSocketChannel channel) implements Stream {
        private static final long SLICE_MILLIS = 1000; // how often a wait looks whether the stream was closed

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return channel.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return channel.write(src);
        }

        @Override
        public long transferFrom(FileDescriptor file, long position, long count) throws IOException {
            return channel.transferFrom(file, position, count);
        }

        @Override
        public boolean awaitWritable(int timeoutMillis) throws IOException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            for (long left; (left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) > 0; ) {
                if (channel.awaitWritable((int) Math.min(left, SLICE_MILLIS))) {
                    return true;
                }
                if (!channel.isOpen() || Thread.currentThread().isInterrupted()) {
                    throw new IOException(channel + " closed while waiting to write");
                }
            }
            return false;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        @Override
        public String toString() {
            return channel.toString();
        }
    }

    private final class TipcSelectors implements Selector {
        private final TipcSelector selector;

        TipcSelectors(TipcSelector selector) {
            this.selector = selector;
        }

        @Override
        public Key registerListener() throws IOException {
            return keyOf(selector.register(listener, SelectionKey.OP_ACCEPT, null), null);
        }

        @Override
        public Key register(Stream stream, int ops, Object attachment) throws IOException {
            return keyOf(selector.register(((TipcStream) stream).channel(), ops, null), attachment);
        }

        private Key keyOf(TipcSelectionKey tipcKey, Object attachment) {
            Key key = new TipcKey(tipcKey, attachment);
            tipcKey.attach(key);
            return key;
        }

        @Override
        public void select(long timeoutMillis) throws IOException {
            selector.select(timeoutMillis);
        }

        @Override
        public List<Key> takeSelected() {
            List<Key> selected = new ArrayList<>();
            selector.selectedKeys().forEach(k -> selected.add((Key) k.attachment()));
            selector.selectedKeys().clear();
            return selected;
        }

        @Override
        public List<Key> keys() {
            List<Key> keys = new ArrayList<>();
            selector.keys().forEach(k -> keys.add((Key) k.attachment()));
            return keys;
        }

        @Override
        public void wakeup() {
            selector.wakeup();
        }

        @Override
        public void close() throws IOException {
            selector.close();
        }
    }

    private record TipcKey(TipcSelectionKey key, Object attachment) implements Key {
        @Override
        public boolean isValid() {
            return key.isValid();
        }

        @Override
        public boolean isAcceptable() {
            return key.isAcceptable();
        }

        @Override
        public boolean isReadable() {
            return key.isReadable();
        }

        @Override
        public void interestOps(int ops) {
            key.interestOps(ops);
        }

        @Override
        public void cancel() {
            key.cancel();
        }
    }
}
