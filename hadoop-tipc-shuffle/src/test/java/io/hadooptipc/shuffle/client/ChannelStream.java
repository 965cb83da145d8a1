package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.Readiness;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A {@link ShuffleStream} over a java.nio socket, for host tests: non-blocking, with
 * reads and writes waiting in a selector for at most their timeouts, as
 * {@link TipcStreamTransport}'s wait in poll(2).
 */
final class ChannelStream implements ShuffleStream {
    /** What the server end of every such stream is named in channel bindings: a socket pair has no TIPC identity. */
    static final String SERVER = "tipc:<socket-pair>";
    private final SocketChannel channel;
    private final Timeouts timeouts;

    ChannelStream(SocketChannel channel, Timeouts timeouts) throws IOException {
        this.channel = channel;
        this.timeouts = timeouts;
        channel.configureBlocking(false);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int n;
        while ((n = channel.read(dst)) == 0 && dst.hasRemaining()) {
            await(SelectionKey.OP_READ, timeouts.readMillis(), "read");
        }
        return n;
    }

    @Override
    public void writeFully(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            if (channel.write(src) == 0) {
                await(SelectionKey.OP_WRITE, timeouts.writeMillis(), "write");
            }
        }
    }

    private void await(int ops, int millis, String what) throws IOException {
        if (!Readiness.await(channel, ops, millis)) {
            throw new SocketTimeoutException(what + " timed out after " + millis + " ms");
        }
    }

    @Override
    public String server() {
        return SERVER;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
