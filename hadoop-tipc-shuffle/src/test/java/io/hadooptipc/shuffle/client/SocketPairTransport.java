package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;

import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.tipc.TipcSocketAddress;

import javax.crypto.SecretKey;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TIPC side of host tests. Each {@link #open} connects a pair of loopback TCP sockets
 * (Java 11, which runs the Hadoop 3.4 line's tests, has no AF_UNIX channels),
 * hands the fetcher's end over as a {@link ChannelStream}, and has a {@link Peer}
 * answer on the other end, in a thread of its own, as the shuffle server would: one
 * request, or with {@link #keepingAlive} every request until the fetcher closes. Like our TIPC server,
 * it binds each response {@link #write} sends to the request's nonce with {@link #JOB_TOKEN}, which
 * the fetchers of host tests hold; {@link #writeUnbound} sends one as a process without it would.
 */
final class SocketPairTransport implements StreamTransport, AutoCloseable {

    /** The server's end of one connection: it has read the request head; unless kept alive, the socket is closed after. */
    @FunctionalInterface
    interface Peer {
        void answer(HttpHead request, SocketChannel socket) throws Exception;
    }

    /** The job token of host tests' fetchers. */
    static final SecretKey JOB_TOKEN = ShuffleWire.key("job token secret");
    /** The request a peer is answering on this thread, until a response to it goes out. */
    private static final ThreadLocal<HttpHead> ANSWERING = new ThreadLocal<>();

    /** Names the fetcher opened streams to, in order. */
    final List<ShuffleServiceName> opened = new CopyOnWriteArrayList<>();
    /** Request heads the peer received, in order. */
    final List<HttpHead> requests = new CopyOnWriteArrayList<>();
    /** How peers ended other than by answering: the fetcher closing first is part of several tests. */
    final List<Exception> peerFailures = new CopyOnWriteArrayList<>();
    /** Kept-alive streams the fetcher closed between requests. */
    final AtomicInteger closedByFetcher = new AtomicInteger();
    private final Peer peer;
    private final Map<TipcSocketAddress, Peer> publications = Collections.synchronizedMap(new LinkedHashMap<>());
    private final IOException refusal;
    private final boolean keptAlive;
    private final ExecutorService peers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "socket-pair peer");
        t.setDaemon(true);
        return t;
    });

    private SocketPairTransport(Peer peer, IOException refusal, boolean keptAlive) throws IOException {
        this.peer = peer;
        this.refusal = refusal;
        this.keptAlive = keptAlive;
    }

    /** Every stream is answered by {@code peer}. */
    static SocketPairTransport answering(Peer peer) throws IOException {
        return new SocketPairTransport(peer, null, false);
    }

    /** Every request on every stream is answered by {@code peer}, until the fetcher closes the stream. */
    static SocketPairTransport keepingAlive(Peer peer) throws IOException {
        return new SocketPairTransport(peer, null, true);
    }

    /** Every open fails with {@code refusal}. */
    static SocketPairTransport refusing(IOException refusal) throws IOException {
        return new SocketPairTransport(null, refusal, false);
    }

    /** A peer that writes {@code response} and closes. */
    static Peer replying(byte[] response) {
        return (request, socket) -> write(socket, response);
    }

    /** A peer that sends nothing and waits until the fetcher closes. */
    static Peer silent() {
        return (request, socket) -> {
            ByteBuffer sink = ByteBuffer.allocate(1024);
            int n;
            do {
                n = socket.read(sink.clear());
            } while (n >= 0); // until the fetcher closes
        };
    }

    /** Writes {@code bytes}; the first that begin a response carry the reply binding of the request being answered. */
    static void write(SocketChannel socket, byte[] bytes) throws IOException {
        HttpHead request = ANSWERING.get();
        if (request != null && new String(bytes, 0, Math.min(5, bytes.length), StandardCharsets.ISO_8859_1).equals("HTTP/")) {
            ANSWERING.remove();
            bytes = bound(request, bytes);
        }
        writeUnbound(socket, bytes);
    }

    /** Writes {@code bytes} as they are. */
    static void writeUnbound(SocketChannel socket, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            socket.write(b);
        }
    }

    /**
     * Lists {@code socket} among the name's publications, answered by {@code peer} when the fetcher
     * connects to it directly; a connection by name still reaches this transport's own peer.
     */
    SocketPairTransport publishedBy(TipcSocketAddress socket, Peer publicationPeer) {
        publications.put(socket, publicationPeer);
        return this;
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        opened.add(name);
        if (refusal != null) {
            throw refusal;
        }
        return connect(peer, timeouts);
    }

    @Override
    public List<TipcSocketAddress> publications(ShuffleServiceName name) {
        return new ArrayList<>(publications.keySet());
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, TipcSocketAddress publication, String host, Timeouts timeouts)
            throws IOException {
        opened.add(name);
        Peer publicationPeer = publications.get(publication);
        if (publicationPeer == null) {
            throw new IOException("no publication " + publication + " here");
        }
        return connect(publicationPeer, timeouts);
    }

    private ShuffleStream connect(Peer answering, Timeouts timeouts) throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            SocketChannel fetcherEnd = SocketChannel.open(listener.getLocalAddress());
            SocketChannel serverEnd = listener.accept();
            peers.execute(() -> serve(serverEnd, answering));
            return new ChannelStream(fetcherEnd, timeouts);
        }
    }

    private void serve(SocketChannel socket, Peer peer) {
        try (socket) {
            do {
                HttpHead request = readHead(socket);
                if (request == null) {
                    if (!keptAlive) {
                        throw new EOFException("no request head");
                    }
                    closedByFetcher.incrementAndGet();
                    return;
                }
                requests.add(request);
                ANSWERING.set(request);
                peer.answer(request, socket);
            } while (keptAlive);
        } catch (Exception e) {
            peerFailures.add(e);
        }
    }

    /** {@code response} with the reply binding our server adds to its head, for {@code request}'s nonce. */
    static byte[] bound(HttpHead request, byte[] response) {
        String text = new String(response, StandardCharsets.ISO_8859_1);
        int statusLineEnd = text.indexOf("\r\n") + 2;
        String field = ChannelBinding.REPLY_HEADER + ": "
                + ChannelBinding.reply(JOB_TOKEN, request.field(ChannelBinding.NONCE_HEADER), ChannelStream.SERVER) + "\r\n";
        return (text.substring(0, statusLineEnd) + field + text.substring(statusLineEnd)).getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The next request head; null if the fetcher closed the stream before one began. */
    static HttpHead readHead(ReadableByteChannel socket) throws IOException {
        byte[] buf = new byte[1 << 16];
        int filled = 0;
        int end;
        while ((end = HttpHead.endOf(buf, 0, filled)) < 0) {
            int n = socket.read(ByteBuffer.wrap(buf, filled, buf.length - filled));
            if (n < 0) {
                if (filled == 0) {
                    return null;
                }
                throw new EOFException("the request head was cut short");
            }
            filled += n;
        }
        return HttpHead.parse(Arrays.copyOf(buf, end), 0, end);
    }

    @Override
    public void close() throws IOException {
        peers.shutdownNow();
    }
}
