package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TlsMaterial;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * The TIPC side of host tests with TLS over TIPC: each {@link #open} connects a plain stream over
 * loopback TCP to a TLS server of the JDK's own ({@link SSLServerSocket}, with the key pair of a
 * given key store), which answers every request on the connection with what {@link Peer} makes,
 * until the fetcher closes. The fetcher's TLS is then whatever wraps these streams.
 */
final class TlsPeerTransport implements StreamTransport, AutoCloseable {

    /** The server's answer to one request. */
    @FunctionalInterface
    interface Peer {
        byte[] answer(HttpHead request) throws Exception;
    }

    /** Names the fetcher opened streams to, in order. */
    final List<ShuffleServiceName> opened = new CopyOnWriteArrayList<>();
    /** Request heads the server received, in order. */
    final List<HttpHead> requests = new CopyOnWriteArrayList<>();
    /** Why connections ended other than by the fetcher's close: a refused handshake, for instance. */
    final List<Exception> serverFailures = new CopyOnWriteArrayList<>();
    private final Peer peer;
    private final SSLServerSocket listener;
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "TLS peer");
        t.setDaemon(true);
        return t;
    });

    /** A TLS server with the key pair in {@code keyStore}. */
    TlsPeerTransport(Path keyStore, Peer peer) throws IOException, GeneralSecurityException {
        this.peer = peer;
        this.listener = (SSLServerSocket) TlsMaterial.serverContext(keyStore).getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        connections.execute(this::accept);
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        opened.add(name);
        return new ChannelStream(SocketChannel.open(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort())), timeouts);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                SSLSocket socket = (SSLSocket) listener.accept();
                connections.execute(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(SSLSocket socket) {
        try (socket) {
            socket.startHandshake();
            ReadableByteChannel in = Channels.newChannel(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            for (HttpHead request; (request = SocketPairTransport.readHead(in)) != null; ) {
                requests.add(request);
                out.write(SocketPairTransport.bound(request, peer.answer(request)));
                out.flush();
            }
        } catch (Exception e) {
            serverFailures.add(e);
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        connections.shutdownNow();
    }
}
