package io.hadooptipc.shuffle.client;

import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/** A connected byte stream to a shuffle server, whose reads and writes give up after their {@link Timeouts}. */
interface ShuffleStream extends Closeable {

    /**
     * Reads what has arrived into {@code dst}, waiting for at least one byte.
     *
     * @return the bytes read, or -1 at the end of the stream
     * @throws SocketTimeoutException when nothing arrived within the read timeout
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Writes all of {@code src}.
     *
     * @throws SocketTimeoutException when the server took no bytes for the write timeout
     */
    void writeFully(ByteBuffer src) throws IOException;

    /**
     * The identity the kernel gives the server's end of this stream (its TIPC socket's {node, port ref}),
     * which {@link io.hadooptipc.shuffle.ChannelBinding} binds each request and reply to.
     */
    String server();

    /** Closes the stream; callable from any thread, and a read or write under way then fails. */
    @Override
    void close() throws IOException;

    /** Closes {@code stream} if there is one; a failure to close is only logged, the stream being done with. */
    static void closeQuietly(ShuffleStream stream) {
        if (stream != null) {
            try {
                stream.close();
            } catch (IOException e) {
                LoggerFactory.getLogger(ShuffleStream.class).debug("closing {}", stream, e);
            }
        }
    }
}
