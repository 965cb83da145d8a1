package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.URL;
import java.nio.channels.AsynchronousCloseException;
import java.util.List;
import java.util.Map;

/**
 * One fetch's request over TIPC and the fallback policy around it. In {@code auto}
 * mode a TIPC failure never reaches the fetcher: it is counted, {@link TransportRoutes}
 * sends the host over HTTP/TCP until its name is published again, and the fetch goes on over
 * HTTP/TCP (before the response: all of it; after: the rest of the body). In
 * {@code tipc} mode, or once the fetcher has disconnected, the failure is the
 * fetcher's, under the stock retry rules. Every response that is not a
 * {@link Misdirection} is the fetcher's too, whatever its status.
 */
final class TipcAttempt implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TipcAttempt.class);

    private final URL url;
    private final TransportRoutes routes;
    private final StreamTransport transport;
    private final TransferCounters counters;
    private volatile TransportRoutes.Route route;
    private volatile ShuffleStream stream;
    private volatile boolean closed;

    TipcAttempt(URL url, TransportRoutes routes, StreamTransport transport, TransferCounters counters) {
        this.url = url;
        this.routes = routes;
        this.transport = transport;
        this.counters = counters;
    }

    /**
     * Sends the request over TIPC when the host's route allows it.
     *
     * @return the response, its body still on the stream; null when the fetch goes over HTTP/TCP
     * @throws IOException TIPC failed and must not fall back
     */
    StreamExchange send(Map<String, List<String>> requestFields, Timeouts timeouts) throws IOException {
        TransportRoutes.Route route = routes.route(url);
        this.route = route;
        if (route.fallback() != null) {
            counters.fallback(route.fallback());
            return null;
        }
        try {
            return exchange(route.name(), requestFields, timeouts);
        } catch (Failure f) {
            closeStream();
            fallBack(f.why, f.cause);
            return null;
        }
    }

    /** The body failed over TIPC after the response head: returns if it may go on over HTTP/TCP, else rethrows. */
    void failedMidTransfer(IOException cause) throws IOException {
        closeStream();
        fallBack(Fallback.MID_TRANSFER, cause);
    }

    /** Closes the TIPC stream from any thread; a failure after this is not fallen back from. */
    @Override
    public void close() {
        closed = true;
        closeStream();
    }

    private void fallBack(Fallback why, IOException cause) throws IOException {
        if (closed || routes.mode() == Transport.TIPC) {
            throw cause;
        }
        routes.fellBack(route, why, cause);
        counters.fallback(why);
    }

    private StreamExchange exchange(ShuffleServiceName name, Map<String, List<String>> requestFields,
                                    Timeouts timeouts) throws Failure {
        try {
            stream = transport.open(name, timeouts);
        } catch (ServiceNotPublishedException e) {
            throw new Failure(Fallback.NOT_PUBLISHED, e);
        } catch (IOException e) {
            throw new Failure(Fallback.CONNECT_FAILED, e);
        }
        StreamExchange response;
        try {
            if (closed) { // a disconnect while the stream was opening
                throw new AsynchronousCloseException();
            }
            response = StreamExchange.send(stream, requestHead(name, requestFields));
        } catch (IOException e) {
            throw new Failure(Fallback.CONNECT_FAILED, e);
        }
        String server = response.head().field(TipcShuffleConfig.SERVER_HEADER);
        if (Misdirection.of(name.toString(), response.status(), server)) {
            throw new Failure(Fallback.MISDIRECTED, new IOException("asked TIPC name of " + name
                    + ", answered by " + server + " (" + response.status() + ")"));
        }
        return response;
    }

    private HttpHead requestHead(ShuffleServiceName name, Map<String, List<String>> requestFields) {
        HttpHead.Builder b = HttpHead.builder("GET " + url.getFile() + " HTTP/1.1")
                .field("Host", url.getHost() + ":" + url.getPort());
        requestFields.forEach((field, values) -> values.forEach(v -> b.field(field, v)));
        return b.field(TipcShuffleConfig.TARGET_HEADER, name).build();
    }

    private void closeStream() {
        ShuffleStream s = stream;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.debug("closing {}", s, e);
            }
        }
    }

    /** TIPC failed before the response: fall back for this reason. */
    private static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final Fallback why;
        final IOException cause;

        Failure(Fallback why, IOException cause) {
            super(cause);
            this.why = why;
            this.cause = cause;
        }
    }
}
