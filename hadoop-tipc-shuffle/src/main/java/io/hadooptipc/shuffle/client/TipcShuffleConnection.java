package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.EOFException;
import java.util.Collections;
import javax.crypto.SecretKey;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The stock fetcher's {@link HttpURLConnection}, carried over a TIPC stream when the
 * map host publishes the shuffle service. The stock Fetcher drives it exactly as it
 * drives an HTTP connection (same request, same hash checks, same status handling),
 * so every stock rule on retries, penalties and failures holds unchanged.
 * {@link TipcAttempt} decides when the fetch goes over HTTP/TCP instead; after the
 * response head (TIPC failed, or a map output under way is one {@link TransportRoutes}
 * sends over HTTP/TCP), the body continues over a second, HTTP/TCP request for the same URL,
 * from the byte where TIPC stopped, once its {@code ReplyHash} matches (the stock
 * handler sends the same bytes for the same request). Over HTTP/TCP it is the stock
 * fetcher's own connection ({@link StockConnections}): HTTPS with the job's SSL settings
 * when encrypted shuffle is on.
 */
final class TipcShuffleConnection extends HttpURLConnection {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleConnection.class);

    private final TipcAttempt tipc;
    private final TransportRoutes routes;
    private final TransferCounters counters;
    private final StockConnections stock;
    private Map<String, List<String>> requestFields;
    private StreamExchange exchange;
    private HttpURLConnection tcp;
    private TransferBody body;

    /** @param jobToken the job's shuffle secret, which the stock fetcher signs its requests with too */
    TipcShuffleConnection(URL url, TransportRoutes routes, StreamPool streams, TransferCounters counters,
                          StockConnections stock, SecretKey jobToken) {
        super(url);
        this.tipc = new TipcAttempt(url, routes, streams, counters, jobToken);
        this.routes = routes;
        this.counters = counters;
        this.stock = stock;
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
        exchange = tipc.send(requestFields, Timeouts.of(this));
        if (exchange == null) {
            tcp = openTcp();
            tcp.connect();
        } else {
            responseCode = exchange.status();
            responseMessage = exchange.message();
        }
        connected = true;
    }

    @Override
    public int getResponseCode() throws IOException {
        connect();
        return tcp != null ? tcp.getResponseCode() : responseCode;
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
        return exchange == null ? null : exchange.head().field(name);
    }

    @Override
    public Map<String, List<String>> getHeaderFields() {
        if (tcp != null) {
            return tcp.getHeaderFields();
        }
        return exchange == null ? Collections.emptyMap() : exchange.head().fields();
    }

    @Override
    public InputStream getInputStream() throws IOException {
        connect();
        if (body == null) {
            if (tcp != null) {
                body = TransferBody.overTcp(tcp.getInputStream(), tcp.getContentLengthLong(),
                        routes.sizeUnknown() ? new SizeSeen() : counters);
            } else {
                if (responseCode >= 400) {
                    throw new IOException("Server returned HTTP response code: " + responseCode + " for URL: " + url);
                }
                body = TransferBody.overTipc(tipc.body(), getHeaderFieldLong("Content-Length", -1),
                        routes.sizeUnknown() ? new SizeSeen() : counters, new SameResponseOverTcp());
            }
        }
        return body;
    }

    @Override
    public void disconnect() {
        tipc.close();
        if (tcp != null) {
            tcp.disconnect();
        }
    }

    @Override
    public boolean usingProxy() {
        return false;
    }

    /** Counts each map output and tells the routes its size, while the task's first is awaited: see BootstrapFreeTest. */
    private final class SizeSeen implements MapOutputFrames.Sink {
        @Override
        public void mapOutput(boolean viaTipc, long bytes) {
            counters.mapOutput(viaTipc, bytes);
            routes.sizeSeen(url.getHost(), bytes);
        }
    }

    /** A class of its own, not lambdas: see BootstrapFreeTest. */
    private final class SameResponseOverTcp implements TransferBody.OverTcp {
        @Override
        public boolean wanted(long bytes) {
            return tipc.prefersTcpFor(bytes);
        }

        @Override
        public InputStream resume(long offset, IOException cause) throws IOException {
            tipc.failedMidTransfer(cause);
            try {
                InputStream in = bodyOverTcp(offset);
                LOG.warn("{}: TIPC failed after {} bytes ({}); resumed over HTTP/TCP", url.getHost(), offset, cause.toString());
                return in;
            } catch (IOException e) {
                cause.addSuppressed(e);
                throw cause;
            }
        }

        @Override
        public InputStream choose(long offset) throws IOException {
            tipc.leftForTcp(); // first: what the server sends until it sees the stream closed is wasted
            try {
                return bodyOverTcp(offset);
            } catch (IOException e) {
                throw new IOException(url.getHost() + ": a large map output's response left TIPC for HTTP/TCP at byte "
                        + offset + ", which failed", e);
            }
        }
    }

    /** The same response over HTTP/TCP from {@code offset}: one whose ReplyHash is the TIPC response's. */
    private InputStream bodyOverTcp(long offset) throws IOException {
        HttpURLConnection c = openTcp();
        try {
            int rc = c.getResponseCode();
            String reply = c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH);
            if (rc != HTTP_OK || !Objects.equals(reply, exchange.head().field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH))) {
                throw new IOException("HTTP/TCP answered " + rc + " with another ReplyHash");
            }
            InputStream in = c.getInputStream();
            skipFully(in, offset);
            tcp = c;
            return in;
        } catch (IOException e) {
            c.disconnect();
            throw e;
        }
    }

    private HttpURLConnection openTcp() throws IOException {
        HttpURLConnection c = stock.open(url);
        c.setConnectTimeout(getConnectTimeout());
        c.setReadTimeout(getReadTimeout());
        for (Map.Entry<String, List<String>> field : requestFields.entrySet()) {
            for (String value : field.getValue()) {
                c.addRequestProperty(field.getKey(), value);
            }
        }
        return c;
    }

    /** Skips exactly {@code n} bytes, as InputStream.skipNBytes does from Java 12. */
    private static void skipFully(InputStream in, long n) throws IOException {
        while (n > 0) {
            long skipped = in.skip(n);
            if (skipped > 0) {
                n -= skipped;
            } else if (in.read() < 0) {
                throw new EOFException("stream ended " + n + " bytes before the resumed offset");
            } else {
                n--;
            }
        }
    }
}
