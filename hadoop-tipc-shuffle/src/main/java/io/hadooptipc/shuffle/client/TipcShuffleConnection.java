package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * response head, the body continues over a second, HTTP/TCP request for the same URL,
 * from the byte where TIPC stopped, once its {@code ReplyHash} matches (the stock
 * handler sends the same bytes for the same request). Over HTTP/TCP it is the stock
 * fetcher's own connection ({@link StockConnections}): HTTPS with the job's SSL settings
 * when encrypted shuffle is on.
 */
final class TipcShuffleConnection extends HttpURLConnection {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleConnection.class);

    private final TipcAttempt tipc;
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
        return exchange == null ? Map.of() : exchange.head().fields();
    }

    @Override
    public InputStream getInputStream() throws IOException {
        connect();
        if (body == null) {
            if (tcp != null) {
                body = TransferBody.overTcp(tcp.getInputStream(), tcp.getContentLengthLong(), counters);
            } else {
                if (responseCode >= 400) {
                    throw new IOException("Server returned HTTP response code: " + responseCode + " for URL: " + url);
                }
                body = TransferBody.overTipc(tipc.body(), getHeaderFieldLong("Content-Length", -1), tipc,
                        new ResumeOverTcp());
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

    /** A class of its own, not a method reference: see BootstrapFreeTest. */
    private final class ResumeOverTcp implements TransferBody.Resume {
        @Override
        public InputStream from(long offset, IOException cause) throws IOException {
            return resumeOverTcp(offset, cause);
        }
    }

    private InputStream resumeOverTcp(long offset, IOException cause) throws IOException {
        tipc.failedMidTransfer(cause);
        HttpURLConnection c = openTcp();
        int rc = c.getResponseCode();
        String reply = c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH);
        if (rc != HTTP_OK || !Objects.equals(reply, exchange.head().field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH))) {
            c.disconnect();
            cause.addSuppressed(new IOException("resuming over HTTP/TCP got " + rc + " with another ReplyHash"));
            throw cause;
        }
        InputStream in = c.getInputStream();
        in.skipNBytes(offset);
        LOG.warn("{}: TIPC failed after {} bytes ({}); resumed over HTTP/TCP", url.getHost(), offset, cause.toString());
        tcp = c;
        return in;
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
}
