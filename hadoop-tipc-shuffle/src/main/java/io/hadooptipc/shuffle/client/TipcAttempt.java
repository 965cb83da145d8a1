package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.TipcSocketAddress;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.SecretKey;
import javax.net.ssl.SSLException;
import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.SocketTimeoutException;
import java.nio.channels.AsynchronousCloseException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One fetch's request over TIPC and the fallback policy around it. In {@code auto}
 * mode a TIPC failure never reaches the fetcher: it is counted, {@link TransportRoutes}
 * sends the host over HTTP/TCP until its name is published again, and the fetch goes on over
 * HTTP/TCP (before the response: all of it; after: the rest of the body). In
 * {@code tipc} mode, or once the fetcher has disconnected, the failure is the
 * fetcher's, under the stock retry rules. Every response that is not a
 * {@link Misdirection} is the fetcher's too, whatever its status, once it proves that the server
 * socket the kernel connected holds the job token ({@link ChannelBinding}). Anything short of that proof
 * may be another process's that bound the name: its answer is not read further, and the request goes to
 * each other socket that publishes the name, each socket within its proof timeout and all within the
 * attempt's ({@link TransportRoutes#proofBounds}); it falls back like a TIPC failure when none proves it.
 * <p>
 * The request goes on a kept-alive stream from the {@link StreamPool} when there is one;
 * if that stream turns out closed by the server before any byte of a response, the
 * request goes once more on a new stream, which is no failure. Closing the body read
 * to its end gives a stream the server keeps alive back to the pool; every other end
 * closes it.
 */
final class TipcAttempt implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TipcAttempt.class);

    private final URL url;
    private final TransportRoutes routes;
    private final StreamPool streams;
    private final TransferCounters counters;
    /** The job token, which the request and its reply bind to the stream's server socket with. */
    private final SecretKey jobToken;
    private final AtomicReference<BufferedStream> stream = new AtomicReference<>();
    private volatile TransportRoutes.Route route;
    private volatile boolean closed;
    private Timeouts timeouts;
    private StreamExchange response;
    /** The nonce of the request last sent. */
    private String nonce;

    TipcAttempt(URL url, TransportRoutes routes, StreamPool streams, TransferCounters counters, SecretKey jobToken) {
        this.url = url;
        this.routes = routes;
        this.streams = streams;
        this.counters = counters;
        this.jobToken = jobToken;
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
            response = exchange(route.name(), requestFields, timeouts);
            this.timeouts = timeouts;
            return response;
        } catch (Failure f) {
            closeStream();
            fallBack(f.why, f.cause);
            return null;
        }
    }

    /** The response's body; closing it ends this attempt's use of the stream. */
    InputStream body() {
        return new FilterInputStream(response.body()) {
            @Override
            public void close() {
                finish();
            }
        };
    }

    /** True when a map output of {@code bytes}, under way over TIPC, should rather come over HTTP/TCP. */
    boolean prefersTcpFor(long bytes) {
        return !closed && routes.tcpFor(route, bytes);
    }

    /** The body goes on over HTTP/TCP by choice: the stream, its response unfinished, is closed; the request counted. */
    void leftForTcp() {
        closeStream();
        counters.fallback(Fallback.LARGE_OUTPUTS);
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
        routes.failIfNodeLost(url, cause); // not over HTTP/TCP to a host whose node is lost: it fails at once
        routes.fellBack(route, why, cause);
        counters.fallback(why);
    }

    /**
     * The response of the first socket that proves the job token: the one the name leads to (or a kept-alive stream
     * to it), else each other socket that publishes the name, each within the proof timeout of a socket and all
     * within that of the attempt. Whatever comes before a proof (a failed connect or TLS handshake, an answer
     * without the reply binding, a 421 or another server named, a close, a head cut short or garbled, none in
     * time) is another process's as likely as the server's, so it is walked past, not believed.
     */
    private StreamExchange exchange(ShuffleServiceName name, Map<String, List<String>> request, Timeouts timeouts)
            throws Failure {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(routes.proofMillis());
        StreamExchange answer = null;
        Failure notProven;
        try {
            answer = byName(name, request, timeouts, deadline);
            notProven = notProven(name, answer);
        } catch (Failure f) {
            if (f.why == Fallback.NOT_PUBLISHED || closed) {
                throw f;
            }
            notProven = f;
        }
        if (notProven == null) {
            String server = answer.head().field(TipcShuffleConfig.SERVER_HEADER);
            if (Misdirection.of(name.toString(), answer.status(), server)) { // a holder of the token, for another host
                throw new Failure(Fallback.MISDIRECTED, new IOException("asked TIPC name of " + name
                        + ", answered by " + server + " (" + answer.status() + ")"));
            }
            return answer;
        }
        closeStream();
        LOG.debug("{}: {}; trying the name's other publications", name, notProven.cause.toString());
        StreamExchange proven = fromAnotherPublication(name, request, timeouts, deadline);
        if (proven == null) {
            if (System.nanoTime() - deadline >= 0) {
                throw new Failure(Fallback.PROOF_TIMEOUT, new SocketTimeoutException("TIPC name of " + name
                        + ": no socket that publishes it proved it holds the job token within " + routes.proofMillis()
                        + " ms (first: " + notProven.cause.getMessage() + ")"));
            }
            throw notProven;
        }
        counters.unauthenticatedSkipped();
        if (streams.firstUnprovenSkipped()) {
            LOG.warn("{}: {} ({}); another socket that publishes the name proved it and serves this task's fetches"
                    + " (each such skip counted in {}, logged once)", name, notProven.why.reason,
                    notProven.cause.getMessage(), TipcShuffleCounter.UNAUTHENTICATED_SKIPPED);
        }
        return proven;
    }

    /** The response on a kept-alive stream to the host, or else on a new one to whoever the name leads to. */
    private StreamExchange byName(ShuffleServiceName name, Map<String, List<String>> request, Timeouts timeouts,
                                  long deadline) throws Failure {
        BufferedStream kept = streams.reuse(name, timeouts);
        if (kept != null) {
            try {
                return sendOn(kept, name, request, socketDeadline(deadline));
            } catch (StreamExchange.NoResponse e) {
                if (closed) {
                    throw new Failure(Fallback.CONNECT_FAILED, e);
                }
                LOG.debug("{}: the server had closed a kept-alive TIPC stream ({}); sending on a new one", name, e.getMessage());
                closeStream();
            } catch (IOException e) {
                throw failure(e);
            }
        }
        long socketDeadline = socketDeadline(deadline);
        BufferedStream opened;
        try {
            opened = streams.open(name, url.getHost(), within(timeouts, socketDeadline));
        } catch (ServiceNotPublishedException e) {
            throw new Failure(Fallback.NOT_PUBLISHED, e);
        } catch (SSLException e) {
            // A reason of its own: the NodeManager serves HTTPS with the SSL factory it serves TLS over TIPC with,
            // so where no socket at the name completes a handshake the host goes over HTTPS, where the stock
            // fetcher fails the copy with the error operators know, if the certificate is refused there too.
            throw new Failure(Fallback.TLS_FAILED, e);
        } catch (IOException e) {
            throw new Failure(Fallback.CONNECT_FAILED, e);
        }
        try {
            return sendOn(opened, name, request, socketDeadline);
        } catch (IOException e) {
            throw failure(e);
        }
    }

    /** Null when the server socket of {@code answer}'s stream proved it holds the job token; else why it did not. */
    private Failure notProven(ShuffleServiceName name, StreamExchange answer) throws Failure {
        String reply = answer.head().field(ChannelBinding.REPLY_HEADER);
        BufferedStream answered = stream.get();
        if (answered == null) {
            throw new Failure(Fallback.CONNECT_FAILED, new AsynchronousCloseException());
        }
        if (ChannelBinding.replyVerifies(jobToken, nonce, answered.server(), reply)) {
            routes.proved(url, name, answered.server()); // only a proven socket ties the host to a node
            return null;
        }
        String server = answer.head().field(TipcShuffleConfig.SERVER_HEADER);
        boolean misdirected = Misdirection.of(name.toString(), answer.status(), server);
        return new Failure(misdirected ? Fallback.MISDIRECTED : Fallback.UNAUTHENTICATED, new IOException(
                "TIPC name of " + name + " led to socket " + answered.server() + ", which did not prove it holds"
                + " the job token (" + answer.status() + (server == null ? "" : ", naming server " + server)
                + ", reply binding " + (reply == null ? "missing" : "wrong") + "): another process bound the name,"
                + " or the server does not know this job"));
    }

    /**
     * The request sent to each socket that publishes the name, connected to directly, until one proves it
     * holds the job token; null when none does by the {@code deadline}. Any process may bind a name and the kernel
     * spreads connections by name over its publications, so the NodeManager's own is among them when it serves.
     */
    private StreamExchange fromAnotherPublication(ShuffleServiceName name, Map<String, List<String>> request,
                                                  Timeouts timeouts, long deadline) throws Failure {
        List<TipcSocketAddress> publications;
        try {
            publications = streams.publications(name);
        } catch (IOException e) {
            LOG.debug("{}: the name's publications could not be listed: {}", name, e.toString());
            return null;
        }
        for (TipcSocketAddress publication : publications) {
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            long socketDeadline = socketDeadline(deadline);
            boolean proved = false;
            try {
                StreamExchange answer = sendOn(streams.open(name, publication, url.getHost(),
                        within(timeouts, socketDeadline)), name, request, socketDeadline);
                String server = answer.head().field(TipcShuffleConfig.SERVER_HEADER);
                proved = notProven(name, answer) == null && !Misdirection.of(name.toString(), answer.status(), server);
                if (proved) {
                    streams.proved(publication, true);
                    return answer;
                }
            } catch (IOException e) {
                LOG.debug("{}: publication {} did not answer: {}", name, publication, e.toString());
            }
            streams.proved(publication, proved);
            closeStream();
            if (closed) {
                throw new Failure(Fallback.CONNECT_FAILED, new AsynchronousCloseException());
            }
        }
        return null;
    }

    /**
     * Sends the request on {@code s} and reads the response head by {@code socketDeadline}, when the task's proof
     * timer closes the stream if the head has not come: a per-read timeout alone lets a byte every so often hold
     * a fetch for good.
     *
     * @throws ProofOverdue the head did not come whole in time
     */
    private StreamExchange sendOn(BufferedStream s, ShuffleServiceName name, Map<String, List<String>> requestFields,
                                  long socketDeadline) throws IOException {
        stream.set(s);
        if (closed) { // a disconnect while the stream was being opened or taken
            throw new AsynchronousCloseException();
        }
        nonce = ChannelBinding.nonce();
        HttpHead head = requestHead(name, requestFields, s.server());
        long left = socketDeadline - System.nanoTime();
        if (left <= 0) {
            throw new ProofOverdue(s);
        }
        Overdue overdue = new Overdue(s);
        overdue.due = routes.proofDue(overdue, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        StreamExchange answer;
        try {
            answer = StreamExchange.send(s, head);
        } catch (IOException e) {
            if (overdue.met()) {
                throw e;
            }
            throw new ProofOverdue(s);
        }
        if (!overdue.met()) {
            throw new ProofOverdue(s);
        }
        return answer;
    }

    private long socketDeadline(long deadline) {
        long socket = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(routes.proofSocketMillis());
        return socket - deadline < 0 ? socket : deadline;
    }

    /** {@code timeouts} with a connect timeout that ends by {@code socketDeadline}. */
    private static Timeouts within(Timeouts timeouts, long socketDeadline) {
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(socketDeadline - System.nanoTime()));
        if (timeouts.connectMillis() > 0 && timeouts.connectMillis() <= left) {
            return timeouts;
        }
        return new Timeouts((int) Math.min(left, Integer.MAX_VALUE), timeouts.readMillis(), timeouts.writeMillis());
    }

    private static Failure failure(IOException e) {
        return new Failure(e instanceof ProofOverdue ? Fallback.PROOF_TIMEOUT : Fallback.CONNECT_FAILED, e);
    }

    /**
     * The request, bound with a fresh nonce to {@code server}, the socket the stream is connected to. It carries
     * the stock fetcher's fields but its UrlHash, which would open the NodeManager's HTTP/TCP port to whoever
     * bound the name: the binding is the request's proof, and the server gives stock's handler the UrlHash.
     */
    private HttpHead requestHead(ShuffleServiceName name, Map<String, List<String>> requestFields, String server) {
        HttpHead.Builder b = HttpHead.builder("GET " + url.getFile() + " HTTP/1.1")
                .field("Host", url.getHost() + ":" + url.getPort());
        for (Map.Entry<String, List<String>> field : requestFields.entrySet()) {
            if (SecureShuffleUtils.HTTP_HEADER_URL_HASH.equalsIgnoreCase(field.getKey())) {
                continue; // valid on the NodeManager's HTTP/TCP port: never to a socket that has proven nothing
            }
            for (String value : field.getValue()) {
                b.field(field.getKey(), value);
            }
        }
        if (streams.keepsStreams()) {
            b.field("Connection", "keep-alive");
        }
        long tcpAbove = routes.tcpAbove();
        if (tcpAbove > 0) {
            b.field(TipcShuffleConfig.TCP_ABOVE_HEADER, Long.toString(tcpAbove));
        }
        return b.field(TipcShuffleConfig.TARGET_HEADER, name)
                .field(ChannelBinding.NONCE_HEADER, nonce)
                .field(ChannelBinding.REQUEST_HEADER, ChannelBinding.request(jobToken, url.getFile(), nonce, server))
                .build();
    }

    /** The fetcher is done with the body: the stream goes back to the pool if it can carry the next request. */
    private void finish() {
        BufferedStream s = stream.getAndSet(null);
        if (s == null) {
            return;
        }
        if (!closed && response.streamReusable()) {
            streams.release(route.name(), timeouts, s, response.keepAliveMillis());
        } else {
            BufferedStream.closeQuietly(s);
        }
    }

    private void closeStream() {
        BufferedStream.closeQuietly(stream.getAndSet(null));
    }


    /**
     * Closes a stream whose response head is overdue, run by the task's proof timer unless the head comes first.
     * A class of its own, not a lambda: see BootstrapFreeTest.
     */
    private static final class Overdue implements Runnable {
        private final BufferedStream stream;
        private final AtomicBoolean settled = new AtomicBoolean();
        ScheduledFuture<?> due;

        Overdue(BufferedStream stream) {
            this.stream = stream;
        }

        @Override
        public void run() {
            if (settled.compareAndSet(false, true)) {
                BufferedStream.closeQuietly(stream);
            }
        }

        /** True when the head came in time: the stream stays open; false when it was closed as overdue. */
        boolean met() {
            due.cancel(false);
            return settled.compareAndSet(false, true);
        }
    }

    /** A socket's response head did not come whole within its proof timeout: the stream was closed. */
    private static final class ProofOverdue extends SocketTimeoutException {
        private static final long serialVersionUID = 1L;

        ProofOverdue(BufferedStream s) {
            super("no whole response head from TIPC socket " + s.server() + " within its proof timeout");
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
