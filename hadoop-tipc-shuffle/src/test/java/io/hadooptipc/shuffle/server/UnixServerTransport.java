package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.Readiness;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shuffle server's sockets over AF_UNIX, with java.nio's selectors: host tests run
 * {@link TipcShuffleServer} on it as the NodeManager runs it on AF_TIPC.
 */
final class UnixServerTransport implements ServerTransport {
    private final UnixDomainSocketAddress address;
    private final ServerSocketChannel listener;

    private UnixServerTransport(UnixDomainSocketAddress address, ServerSocketChannel listener) {
        this.address = address;
        this.listener = listener;
    }

    /** Listens at {@code socket}, a path that must not exist yet. */
    static UnixServerTransport listen(Path socket) throws IOException {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(socket);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(address);
        listener.configureBlocking(false);
        return new UnixServerTransport(address, listener);
    }

    /** A reducer's connection to this server, blocking. */
    SocketChannel connect() throws IOException {
        return SocketChannel.open(address);
    }

    @Override
    public Stream accept() throws IOException {
        SocketChannel channel = listener.accept();
        if (channel == null) {
            return null;
        }
        channel.configureBlocking(false);
        return new UnixStream(channel);
    }

    @Override
    public Selector openSelector() throws IOException {
        return new UnixSelector(java.nio.channels.Selector.open());
    }

    @Override
    public void close() throws IOException {
        listener.close();
        Files.deleteIfExists(address.getPath());
    }

    private record UnixStream(SocketChannel channel) implements Stream {
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
            // Not closed: closing it would close the responder's file.
            return new FileInputStream(file).getChannel().transferTo(position, count, channel);
        }

        @Override
        public boolean awaitWritable(int timeoutMillis) throws IOException {
            return Readiness.await(channel, SelectionKey.OP_WRITE, timeoutMillis);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    private final class UnixSelector implements Selector {
        private final java.nio.channels.Selector selector;

        UnixSelector(java.nio.channels.Selector selector) {
            this.selector = selector;
        }

        @Override
        public Key registerListener() throws IOException {
            return keyOf(listener.register(selector, SelectionKey.OP_ACCEPT), null);
        }

        @Override
        public Key register(Stream stream, int ops, Object attachment) throws IOException {
            SocketChannel channel = ((UnixStream) stream).channel();
            SelectionKey cancelled = channel.keyFor(selector);
            if (cancelled != null && !cancelled.isValid()) {
                selector.selectNow(); // java.nio lets go of a cancelled key only in a selection
            }
            return keyOf(channel.register(selector, ops), attachment);
        }

        private Key keyOf(SelectionKey nioKey, Object attachment) {
            Key key = new UnixKey(nioKey, attachment);
            nioKey.attach(key);
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

    private record UnixKey(SelectionKey key, Object attachment) implements Key {
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
