package io.hadooptipc.shuffle;

import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;

import javax.crypto.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/** One request on a new TIPC connection, as raw bytes, for tests that check what a server answers byte for byte. */
public final class TipcExchange {
    private static final int IDLE_MILLIS = 30_000;

    /** Sends {@code request} to {@code service} and returns everything the server sent until it closed (or 30 s of silence). */
    public static byte[] untilClosed(TipcServiceAddress service, byte[] request) throws IOException {
        try (TipcSocketChannel ch = TipcSocketChannel.open(service)) {
            return untilClosed(ch, request);
        }
    }

    /**
     * Sends our fetcher's request for {@code uri} to {@code service}, bound with the job token {@code key} to the
     * socket the kernel connected ({@link ChannelBinding}), and returns everything the server sent until it closed.
     */
    public static byte[] boundUntilClosed(TipcServiceAddress service, String uri, String target, SecretKey key)
            throws IOException {
        try (TipcSocketChannel ch = TipcSocketChannel.open(service)) {
            String server = ch.getPeerAddress().toString();
            return untilClosed(ch, ShuffleHttp.boundRequest(uri, target, key, server).encode());
        }
    }

    private static byte[] untilClosed(TipcSocketChannel ch, byte[] request) throws IOException {
        ch.writeFully(ByteBuffer.wrap(request));
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        while (ch.awaitReadable(IDLE_MILLIS) && ch.read(buf.clear()) > 0) {
            got.write(buf.array(), 0, buf.position());
        }
        return got.toByteArray();
    }

    private TipcExchange() {
    }
}
