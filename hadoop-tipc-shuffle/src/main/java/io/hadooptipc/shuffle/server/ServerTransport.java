package io.hadooptipc.shuffle.server;

import java.io.Closeable;
import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.List;

/**
 * What {@link TipcShuffleServer} needs of its sockets, in java.nio's terms: a listening
 * socket, the non-blocking streams it accepts, and selectors over both.
 * {@link TipcServerTransport} is AF_TIPC; host tests run the server on AF_UNIX sockets.
 */
interface ServerTransport extends Closeable {

    /**
     * The next pending connection, non-blocking; null when none is pending.
     *
     * @throws OutOfResources when the process or the kernel has no descriptor or memory for it
     */
    Stream accept() throws IOException;

    /** A selector over this transport's listener and streams. */
    Selector openSelector() throws IOException;

    /** Stops listening; accepted streams stay open. */
    @Override
    void close() throws IOException;

    /** An accepted connection, non-blocking. */
    interface Stream extends Closeable {
        /** Bytes read, 0 when none have arrived, -1 at end of stream. */
        int read(ByteBuffer dst) throws IOException;

        /** Bytes written, 0 when the socket takes none now. */
        int write(ByteBuffer src) throws IOException;

        /** Sends up to {@code count} bytes of a file with sendfile(2); 0 when the socket takes none now. */
        long transferFrom(FileDescriptor file, long position, long count) throws IOException;

        /**
         * Waits until a write would take bytes, for at most {@code timeoutMillis}; false on timeout.
         *
         * @throws IOException when the stream is closed, or the thread interrupted, meanwhile
         */
        boolean awaitWritable(int timeoutMillis) throws IOException;

        /** Callable from any thread; a wait or call under way on the stream then ends. */
        @Override
        void close() throws IOException;
    }

    /** Readiness of the listener ({@link SelectionKey#OP_ACCEPT}) and of streams ({@link SelectionKey#OP_READ}). */
    interface Selector extends Closeable {
        Key registerListener() throws IOException;

        Key register(Stream stream, int ops, Object attachment) throws IOException;

        /** Waits up to {@code timeoutMillis} for a registered operation to be ready, a wakeup, or a close. */
        void select(long timeoutMillis) throws IOException;

        /** The keys found ready since the last call. */
        List<Key> takeSelected();

        /** Every registered key. */
        List<Key> keys();

        /** Ends a {@link #select} under way in another thread. */
        void wakeup();
    }

    /** A registration with a {@link Selector}. */
    interface Key {
        Object attachment();

        boolean isValid();

        boolean isAcceptable();

        boolean isReadable();

        void interestOps(int ops);

        void cancel();
    }

    /** Accepting failed for want of descriptors or memory: back off and try again. */
    final class OutOfResources extends IOException {
        private static final long serialVersionUID = 1L;

        OutOfResources(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }
}
