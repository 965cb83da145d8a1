package io.hadooptipc.shuffle.client;

import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * TLS over another {@link ShuffleStream}: an {@link SSLEngine} in client mode driven over the
 * stream's reads and writes, so its timeouts bound the handshake too. The handshake happens when
 * the stream is made, and the server's certificate is then checked against the map host's name
 * by the {@link HostnameVerifier}, as HttpsURLConnection checks it with the one the stock fetcher
 * gives it, before a byte of the request goes out. Reads and writes come from one thread at a time
 * (the fetch that holds the stream); {@link #close} may come from any.
 */
final class TlsStream implements ShuffleStream {
    private final ShuffleStream wire;
    private final SSLEngine engine;
    private ByteBuffer fromWire; // ciphertext read and not yet unwrapped, ready to be filled
    private ByteBuffer toWire;   // ciphertext to send, ready to be filled
    private ByteBuffer plain;    // plaintext unwrapped and not yet read, ready to be filled
    private boolean inboundDone;

    private TlsStream(ShuffleStream wire, SSLEngine engine) {
        this.wire = wire;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.fromWire = ByteBuffer.allocate(packet);
        this.toWire = ByteBuffer.allocate(packet);
        this.plain = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    }

    /**
     * Completes a TLS handshake over {@code wire} as a client, and checks the certificate against
     * {@code host}; closes {@code wire} if either fails.
     *
     * @throws SSLException the handshake failed (an untrusted certificate included), or the
     *                      certificate is not for {@code host}
     */
    static TlsStream connect(ShuffleStream wire, SSLEngine engine, String host, HostnameVerifier verifier)
            throws IOException {
        try {
            TlsStream tls = new TlsStream(wire, engine);
            engine.beginHandshake();
            tls.handshake();
            if (!verifier.verify(host, engine.getSession())) {
                throw new SSLPeerUnverifiedException("TLS over TIPC: the certificate is not for host " + host);
            }
            return tls;
        } catch (IOException | RuntimeException e) {
            ShuffleStream.closeQuietly(wire);
            throw e;
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        while (plain.position() == 0) {
            if (inboundDone || !unwrap()) {
                return -1;
            }
        }
        plain.flip();
        int n = Math.min(plain.remaining(), dst.remaining());
        ByteBuffer taken = plain.duplicate();
        taken.limit(taken.position() + n);
        dst.put(taken);
        plain.position(plain.position() + n);
        plain.compact();
        return n;
    }

    @Override
    public void writeFully(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            wrap(src);
        }
    }

    /** The socket under TLS: TLS names the host's certificate, not which socket the kernel connected. */
    @Override
    public String server() {
        return wire.server();
    }

    /** Closes the stream under TLS; no close_notify, which a close from another thread could not send safely. */
    @Override
    public void close() throws IOException {
        wire.close();
    }

    /** Runs the handshake until the engine has nothing more to do for it. */
    private void handshake() throws IOException {
        for (HandshakeStatus status = engine.getHandshakeStatus(); ; status = engine.getHandshakeStatus()) {
            switch (status) {
                case NEED_WRAP:
                    wrap(ByteBuffer.allocate(0));
                    break;
                case NEED_UNWRAP: // NEED_UNWRAP_AGAIN (Java 9) is DTLS's only
                    if (!unwrap()) {
                        throw new SSLHandshakeException("TLS over TIPC: the server closed the stream in the handshake");
                    }
                    break;
                case NEED_TASK:
                    runTasks();
                    break;
                default:
                    return; // FINISHED, NOT_HANDSHAKING
            }
        }
    }

    /** Wraps some of {@code src} (or a handshake message) and sends it. */
    private void wrap(ByteBuffer src) throws IOException {
        SSLEngineResult result = engine.wrap(src, toWire);
        switch (result.getStatus()) {
            case BUFFER_OVERFLOW:
                toWire = grow(toWire, engine.getSession().getPacketBufferSize());
                break;
            case CLOSED:
                throw new SSLException("TLS over TIPC: the session is closed");
            default:
                toWire.flip();
                wire.writeFully(toWire);
                toWire.clear();
        }
        afterOperation(result);
    }

    /**
     * Unwraps what has arrived into {@link #plain}, reading from the wire when a whole record has
     * not; false when the stream ended (the server's close_notify, or its end without one, which
     * the response's Content-Length makes no less safe).
     */
    private boolean unwrap() throws IOException {
        while (true) {
            fromWire.flip();
            SSLEngineResult result = engine.unwrap(fromWire, plain);
            fromWire.compact();
            switch (result.getStatus()) {
                case BUFFER_UNDERFLOW:
                    if (!fromWire.hasRemaining()) {
                        fromWire = grow(fromWire, engine.getSession().getPacketBufferSize());
                    }
                    if (wire.read(fromWire) < 0) {
                        inboundDone = true;
                        return false;
                    }
                    continue;
                case BUFFER_OVERFLOW:
                    plain = grow(plain, engine.getSession().getApplicationBufferSize());
                    continue;
                case CLOSED:
                    inboundDone = true;
                    return false;
                default:
                    break;
            }
            afterOperation(result);
            return true;
        }
    }

    /** What the engine asks for between records outside the handshake: its tasks, or a reply such as a key update. */
    private void afterOperation(SSLEngineResult result) throws IOException {
        HandshakeStatus status = result.getHandshakeStatus();
        if (status == HandshakeStatus.NEED_TASK) {
            runTasks();
            status = engine.getHandshakeStatus();
        }
        if (status == HandshakeStatus.NEED_WRAP && !engine.isOutboundDone()) {
            wrap(ByteBuffer.allocate(0));
        }
    }

    private void runTasks() {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
    }

    /** {@code buffer}, ready to be filled, with room for at least {@code size} more bytes. */
    private static ByteBuffer grow(ByteBuffer buffer, int size) {
        ByteBuffer bigger = ByteBuffer.allocate(buffer.position() + size);
        buffer.flip();
        return bigger.put(buffer);
    }
}
