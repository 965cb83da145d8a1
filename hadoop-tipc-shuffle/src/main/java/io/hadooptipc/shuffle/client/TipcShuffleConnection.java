package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.TipcException;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcSocketOptions;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The stock fetcher's {@link HttpURLConnection}, carried over a TIPC stream when the
 * map host publishes the shuffle service. The stock Fetcher drives it exactly as it
 * drives an HTTP connection (same request, same hash checks, same status handling),
 * so every stock rule on retries, penalties and failures holds unchanged.
 * <p>
 * In {@code auto} mode a TIPC failure never reaches the fetcher: before the response
 * the whole exchange moves to HTTP/TCP; after it, the body continues over a second,
 * HTTP/TCP request for the same URL, from the byte where TIPC stopped, once its
 * {@code ReplyHash} matches (the stock handler sends the same bytes for the same request).
 */
final class TipcShuffleConnection extends HttpURLConnection {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleConnection.class);
    private static final int MAX_RESPONSE_HEAD = 64 * 1024;

    private final TransportRoutes routes;
    private final TransferCounters counters;
    private Map<String, List<String>> requestFields;
    private TipcSocketChannel channel;
    private HttpHead head;
    private byte[] early = new byte[0]; // body bytes that came with the response head
    private HttpURLConnection tcp;
    private Body body;
    private volatile boolean disconnected;

    TipcShuffleConnection(URL url, TransportRoutes routes, TransferCounters counters) {
        super(url);
        this.routes = routes;
        this.counters = counters;
    }

    @Override
    public void connect() throws IOException {
        if (connected) {
            return;
        }
        if (tcp != null) { // the stock fetcher retries connect() on the same connection
            tcp.connect();
            connected = true;
            return;
        }
        requestFields = getRequestProperties();
        TransportRoutes.Route route = routes.route(url);
        if (route.fallback() != null) {
            useTcp(route.fallback());
            return;
        }
        try {
            exchangeOverTipc(route.name());
            connected = true;
        } catch (TipcFailure f) {
            closeChannel();
            if (routes.mode() == Transport.TIPC) {
                throw f.cause;
            }
            routes.fellBack(url, f.why, f.cause);
            useTcp(f.why);
        }
    }

    @Override
    public int getResponseCode() throws IOException {
        connect();
        if (tcp != null) {
            return tcp.getResponseCode();
        }
        return responseCode;
    }

    @Override
    public String getResponseMessage() throws IOException {
        connect();
        return tcp != null ? tcp.getResponseMessage() : responseMessage;
    }

    @Override
    public String getHeaderField(String name) {
        if (tcp != null) {
            return tcp.getHeaderField(name);
        }
        return head == null ? null : head.field(name);
    }

    @Override
    public Map<String, List<String>> getHeaderFields() {
        if (tcp != null) {
            return tcp.getHeaderFields();
        }
        return head == null ? Map.of() : head.fields();
    }

    @Override
    public InputStream getInputStream() throws IOException {
        connect();
        if (body == null) {
            if (tcp != null) {
                body = new Body(tcp.getInputStream(), tcp.getContentLengthLong());
            } else {
                if (responseCode >= 400) {
                    throw new IOException("Server returned HTTP response code: " + responseCode + " for URL: " + url);
                }
                body = new Body(null, head.field("Content-Length") == null ? -1
                        : Long.parseLong(head.field("Content-Length")));
            }
        }
        return body;
    }

    @Override
    public void disconnect() {
        disconnected = true;
        closeChannel();
        if (tcp != null) {
            tcp.disconnect();
        }
    }

    @Override
    public boolean usingProxy() {
        return false;
    }

    private void exchangeOverTipc(ShuffleServiceName name) throws TipcFailure {
        try {
            channel = TipcSocketChannel.open();
            if (getConnectTimeout() > 0) {
                channel.setOption(TipcSocketOptions.CONNECT_TIMEOUT, getConnectTimeout());
            }
            channel.connect(name.tipcAddress(routes.serviceType()));
        } catch (TipcException e) {
            throw new TipcFailure(e.errno() == TipcException.EHOSTUNREACH ? Fallback.NOT_PUBLISHED : Fallback.CONNECT_FAILED, e);
        } catch (IOException e) {
            throw new TipcFailure(Fallback.CONNECT_FAILED, e);
        }
        try {
            channel.writeFully(ByteBuffer.wrap(requestHead(name).encode()));
            readResponseHead();
        } catch (IOException e) {
            throw new TipcFailure(Fallback.CONNECT_FAILED, e);
        }
        String server = head.field(TipcShuffleConfig.SERVER_HEADER);
        if (Misdirection.of(name.toString(), responseCode, server)) {
            throw new TipcFailure(Fallback.MISDIRECTED,
                    new IOException("asked TIPC name of " + name + ", answered by " + server + " (" + responseCode + ")"));
        }
    }

    private HttpHead requestHead(ShuffleServiceName name) {
        HttpHead.Builder b = HttpHead.builder("GET " + url.getFile() + " HTTP/1.1")
                .field("Host", url.getHost() + ":" + url.getPort());
        requestFields.forEach((field, values) -> values.forEach(v -> b.field(field, v)));
        return b.field(TipcShuffleConfig.TARGET_HEADER, name).build();
    }

    private void readResponseHead() throws IOException {
        byte[] buf = new byte[4096];
        int filled = 0;
        int scanned = 0; // the head's end is not before here
        int end;
        while ((end = HttpHead.endOf(buf, scanned, filled)) < 0) {
            scanned = Math.max(0, filled - 3);
            if (filled == buf.length) {
                if (buf.length >= MAX_RESPONSE_HEAD) {
                    throw new IOException("response head over " + MAX_RESPONSE_HEAD + " bytes");
                }
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            int n = readTipc(ByteBuffer.wrap(buf, filled, buf.length - filled));
            if (n < 0) {
                throw new EOFException("TIPC stream ended before the response head did");
            }
            filled += n;
        }
        head = HttpHead.parse(buf, 0, end);
        early = Arrays.copyOfRange(buf, end, filled);
        String[] status = head.startLine().split(" ", 3);
        try {
            responseCode = Integer.parseInt(status[1]);
        } catch (RuntimeException e) {
            throw new IOException("bad status line: " + head.startLine());
        }
        responseMessage = status.length > 2 ? status[2] : "";
    }

    private int readTipc(ByteBuffer dst) throws IOException {
        int timeout = getReadTimeout();
        if (!channel.awaitReadable(timeout > 0 ? timeout : -1)) {
            throw new SocketTimeoutException("TIPC read timed out after " + timeout + " ms");
        }
        return channel.read(dst);
    }

    private void useTcp(Fallback why) throws IOException {
        counters.fallback(why);
        tcp = openTcp();
        tcp.connect();
        connected = true;
    }

    private HttpURLConnection openTcp() throws IOException {
        HttpURLConnection c = (HttpURLConnection) url.openConnection();
        c.setConnectTimeout(getConnectTimeout());
        c.setReadTimeout(getReadTimeout());
        requestFields.forEach((field, values) -> values.forEach(v -> c.addRequestProperty(field, v)));
        return c;
    }

    private void closeChannel() {
        TipcSocketChannel ch = channel;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                LOG.debug("closing {}", ch, e);
            }
        }
    }

    /** The response body, from TIPC or HTTP/TCP, counting map outputs per transport as they pass. */
    private final class Body extends InputStream {
        private final long length;
        private final MapOutputFrames frames = new MapOutputFrames(counters::mapOutput);
        private final byte[] single = new byte[1];
        private InputStream tcpIn;
        private int earlyPos;
        private long consumed;

        Body(InputStream tcpIn, long length) {
            this.tcpIn = tcpIn;
            this.length = length;
        }

        @Override
        public int read() throws IOException { // DataInputStream reads ShuffleHeaders a byte at a time
            return read(single, 0, 1) < 0 ? -1 : single[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            if (length >= 0) {
                if (consumed >= length) {
                    return -1;
                }
                len = (int) Math.min(len, length - consumed);
            }
            boolean viaTipc = tcpIn == null;
            int n;
            if (viaTipc) {
                try {
                    n = readTipcBody(b, off, len);
                } catch (IOException e) {
                    resumeOverTcp(e);
                    viaTipc = false;
                    n = tcpIn.read(b, off, len);
                }
            } else {
                n = tcpIn.read(b, off, len);
            }
            if (n > 0) {
                consumed += n;
                frames.accept(b, off, n, viaTipc);
            } else if (n < 0 && length >= 0 && consumed < length) {
                throw new EOFException("response ended " + (length - consumed) + " bytes early");
            }
            return n;
        }

        private int readTipcBody(byte[] b, int off, int len) throws IOException {
            if (earlyPos < early.length) {
                int n = Math.min(len, early.length - earlyPos);
                System.arraycopy(early, earlyPos, b, off, n);
                earlyPos += n;
                return n;
            }
            int n = readTipc(ByteBuffer.wrap(b, off, len));
            if (n < 0 && length >= 0 && consumed < length) {
                throw new EOFException("TIPC stream ended " + (length - consumed) + " bytes early");
            }
            return n;
        }

        private void resumeOverTcp(IOException cause) throws IOException {
            if (disconnected || routes.mode() == Transport.TIPC) {
                throw cause;
            }
            routes.fellBack(url, Fallback.MID_TRANSFER, cause);
            counters.fallback(Fallback.MID_TRANSFER);
            closeChannel();
            HttpURLConnection c = openTcp();
            int rc = c.getResponseCode();
            String reply = c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH);
            if (rc != HTTP_OK || !Objects.equals(reply, head.field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH))) {
                c.disconnect();
                cause.addSuppressed(new IOException("resuming over HTTP/TCP got " + rc + " with another ReplyHash"));
                throw cause;
            }
            InputStream in = c.getInputStream();
            in.skipNBytes(consumed);
            LOG.warn("{}: TIPC failed after {} bytes ({}); resumed over HTTP/TCP", url.getHost(), consumed,
                    cause.toString());
            tcp = c;
            tcpIn = in;
        }

        @Override
        public void close() throws IOException {
            if (tcpIn != null) {
                tcpIn.close();
            }
            closeChannel();
        }
    }

    /** TIPC failed before the response: fall back for this reason. */
    private static final class TipcFailure extends Exception {
        private static final long serialVersionUID = 1L;
        final Fallback why;
        final IOException cause;

        TipcFailure(Fallback why, IOException cause) {
            super(cause);
            this.why = why;
            this.cause = cause;
        }
    }
}
