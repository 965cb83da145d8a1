package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TIPC side of the shuffle server, on a {@link ServerTransport} (AF_TIPC in the
 * NodeManager, AF_UNIX in host tests). One thread accepts connections and reads
 * request heads without blocking; a complete head goes to a worker thread, which
 * answers it with non-blocking writes and sendfile, waiting at most the write timeout
 * each time the reducer takes no bytes, then hands a kept-alive connection back.
 * Refusals (400, 431, and 429 with Retry-After over the connection limit or when the
 * worker queue is full) are written without blocking the selector thread (what the
 * socket does not take at once, a free worker writes), then the connection is closed.
 * An idle or half-sent connection is closed after the keep-alive timeout. A failure
 * of one connection closes that connection only; when accept runs out of file
 * descriptors the acceptor pauses accepting and tries again.
 */
public final class TipcShuffleServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleServer.class);
    private static final long ACCEPT_BACKOFF_MILLIS = 500;

    /**
     * @param maxConnections    stock {@code mapreduce.shuffle.max.connections}; 0 = no limit
     * @param workerThreads     stock {@code mapreduce.shuffle.max.threads}, resolved (never 0)
     * @param maxQueuedRequests requests waiting for a worker; one more gets 429
     * @param writeTimeoutMillis how long a response may wait for the reducer to take more bytes
     */
    public record Settings(int maxConnections, int workerThreads, int maxQueuedRequests, int maxHeadBytes,
                           int idleTimeoutMillis, int writeTimeoutMillis) {
    }

    private final ShuffleResponder responder;
    private final TipcShuffleMetrics metrics;
    private final Settings settings;
    private final ServerTransport transport;
    private final ServerTransport.Selector selector;
    private final ServerTransport.Key acceptKey;
    private final ThreadPoolExecutor workers;
    private final Queue<Connection> returning = new ConcurrentLinkedQueue<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Thread loop;
    private long acceptPausedUntil; // System.nanoTime(); 0: accepting
    private volatile boolean running = true;

    private TipcShuffleServer(ShuffleResponder responder, TipcShuffleMetrics metrics, Settings settings,
                              ServerTransport transport, ServerTransport.Selector selector,
                              ServerTransport.Key acceptKey) {
        this.responder = responder;
        this.metrics = metrics;
        this.settings = settings;
        this.transport = transport;
        this.selector = selector;
        this.acceptKey = acceptKey;
        AtomicInteger n = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(settings.workerThreads(), settings.workerThreads(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(Math.max(1, settings.maxQueuedRequests())),
                r -> {
                    Thread worker = new Thread(r, "TIPC shuffle worker #" + n.incrementAndGet());
                    worker.setDaemon(true);
                    return worker;
                });
        this.loop = new Thread(this::run, "TIPC shuffle acceptor");
        this.loop.setDaemon(true);
    }

    /** Starts serving the connections {@code transport} accepts; closes it on failure. */
    public static TipcShuffleServer start(ShuffleResponder responder, TipcShuffleMetrics metrics, Settings settings,
                                          ServerTransport transport) throws IOException {
        ServerTransport.Selector selector = null;
        ServerTransport.Key acceptKey;
        try {
            selector = transport.openSelector();
            acceptKey = selector.registerListener();
        } catch (IOException | RuntimeException e) {
            transport.close();
            if (selector != null) {
                selector.close();
            }
            throw e;
        }
        TipcShuffleServer server = new TipcShuffleServer(responder, metrics, settings, transport, selector, acceptKey);
        server.loop.start();
        return server;
    }

    @Override
    public void close() throws IOException {
        running = false;
        selector.wakeup();
        try {
            loop.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        for (Connection c : connections) {
            c.close();
        }
        transport.close();
    }

    private void run() {
        try {
            while (running) {
                try {
                    turn();
                } catch (IOException | RuntimeException e) { // the loop itself: log, breathe, go on
                    LOG.error("TIPC shuffle acceptor: {}; going on", e.toString(), e);
                    pause(ACCEPT_BACKOFF_MILLIS);
                }
            }
        } finally {
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("closing selector", e);
            }
        }
    }

    private void turn() throws IOException {
        selector.select(Math.max(1, Math.min(ACCEPT_BACKOFF_MILLIS, settings.idleTimeoutMillis() / 4)));
        for (Connection c; (c = returning.poll()) != null; ) {
            c.resumeReading();
        }
        for (ServerTransport.Key key : selector.takeSelected()) {
            if (key == acceptKey) {
                if (key.isValid() && key.isAcceptable()) {
                    acceptAll();
                }
            } else if (key.isValid() && key.isReadable()) {
                ((Connection) key.attachment()).readable(key);
            }
        }
        if (acceptPausedUntil != 0 && System.nanoTime() - acceptPausedUntil >= 0) {
            acceptPausedUntil = 0;
            acceptKey.interestOps(SelectionKey.OP_ACCEPT);
        }
        closeIdle();
    }

    private void acceptAll() {
        while (true) {
            ServerTransport.Stream stream;
            try {
                stream = transport.accept();
            } catch (ServerTransport.OutOfResources e) {
                // Level-triggered: a pending connection would wake us at once, so stop asking for a while.
                LOG.warn("TIPC shuffle cannot accept ({}); trying again in {} ms", e.getMessage(), ACCEPT_BACKOFF_MILLIS);
                acceptKey.interestOps(0);
                acceptPausedUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ACCEPT_BACKOFF_MILLIS);
                return;
            } catch (IOException e) {
                LOG.info("TIPC shuffle accept failed: {}", e.getMessage());
                return;
            }
            if (stream == null) {
                return;
            }
            metrics.connections.incr();
            Connection c = new Connection(stream);
            metrics.openConnections.incr();
            connections.add(c);
            int now = connections.size();
            if (settings.maxConnections() > 0 && now > settings.maxConnections()) {
                LOG.info("TIPC shuffle connections ({}) over mapreduce.shuffle.max.connections ({}): 429",
                        now, settings.maxConnections());
                c.overLimit = true; // refused once its head is in, so the 429 can name the server it asked for
            }
            try {
                selector.register(stream, SelectionKey.OP_READ, c);
            } catch (IOException | RuntimeException e) {
                LOG.info("TIPC shuffle connection {} not served: {}", stream, e.toString());
                c.close();
            }
        }
    }

    private void closeIdle() {
        long now = System.nanoTime();
        long limit = TimeUnit.MILLISECONDS.toNanos(settings.idleTimeoutMillis());
        for (ServerTransport.Key key : selector.keys()) {
            if (key.attachment() instanceof Connection c && now - c.idleSince > limit) {
                LOG.debug("closing idle TIPC shuffle connection {}", c.stream);
                c.close();
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One accepted connection; the selector thread and one worker take turns with it. */
    private final class Connection implements ResponseStream {
        final ServerTransport.Stream stream;
        final RequestHeads heads = new RequestHeads(settings.maxHeadBytes());
        volatile long idleSince = System.nanoTime();
        boolean overLimit;
        private boolean closed;

        Connection(ServerTransport.Stream stream) {
            this.stream = stream;
        }

        /** Selector thread: bytes have arrived. */
        void readable(ServerTransport.Key key) {
            try {
                int n = stream.read(heads.space());
                if (n < 0) {
                    close();
                    return;
                }
                heads.filled(n);
                idleSince = System.nanoTime();
                dispatch(key);
            } catch (IOException | RuntimeException e) {
                LOG.debug("TIPC shuffle read failed on {}", stream, e);
                close();
            }
        }

        /** Selector thread: hands a complete head to a worker, or refuses it. */
        private void dispatch(ServerTransport.Key key) {
            HttpHead head;
            try {
                head = heads.next();
            } catch (RequestHeads.HeadTooLarge e) {
                key.cancel();
                refuse(431, null, e.getMessage(), null);
                return;
            } catch (HttpHead.MalformedHttpException e) {
                key.cancel();
                refuse(400, null, e.getMessage(), null);
                return;
            }
            if (head == null) {
                return;
            }
            key.cancel();
            if (overLimit) {
                refuse(429, head, "", ShuffleHandler.FETCH_RETRY_DELAY);
                return;
            }
            try {
                workers.execute(() -> answer(head));
            } catch (RejectedExecutionException e) {
                if (running) {
                    LOG.info("TIPC shuffle worker queue full ({} waiting): 429", workers.getQueue().size());
                }
                refuse(429, head, "", ShuffleHandler.FETCH_RETRY_DELAY);
            }
        }

        /** Worker thread. */
        private void answer(HttpHead head) {
            try {
                if (responder.respond(head, this) && running) {
                    returning.add(this);
                    selector.wakeup();
                } else {
                    close();
                }
            } catch (IOException | RuntimeException e) {
                LOG.info("TIPC shuffle response on {} failed: {}", stream, e.toString());
                close();
            }
        }

        /** Selector thread: a worker is done with a kept-alive connection. */
        void resumeReading() {
            idleSince = System.nanoTime();
            try {
                ServerTransport.Key key = selector.register(stream, SelectionKey.OP_READ, this);
                if (heads.hasBytes()) { // a pipelined request may already be complete
                    dispatch(key);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("TIPC shuffle connection {} not resumed", stream, e);
                close();
            }
        }

        /**
         * Selector thread: writes what the socket takes at once of an error response; a worker
         * writes the rest, if one is free, as it would a response, then the connection is closed.
         * The rest is there when the reducer has yet to read an earlier, pipelined response.
         */
        private void refuse(int status, HttpHead request, String message, Long retryAfterMillis) {
            ByteBuffer response;
            try {
                response = responder.errorResponse(request, status, message, retryAfterMillis);
                stream.write(response);
            } catch (IOException | RuntimeException e) {
                LOG.debug("could not send {} on {}", status, stream, e);
                close();
                return;
            }
            if (!response.hasRemaining()) {
                close();
                return;
            }
            try {
                workers.execute(() -> {
                    try {
                        writeFully(response);
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("could not send {} on {}", status, stream, e);
                    } finally {
                        close();
                    }
                });
            } catch (RejectedExecutionException e) {
                LOG.debug("{} to {} cut short: the socket was full and every worker busy", status, stream);
                close();
            }
        }

        @Override
        public void writeFully(ByteBuffer bytes) throws IOException {
            while (bytes.hasRemaining()) {
                if (stream.write(bytes) == 0) {
                    awaitWritable();
                }
            }
        }

        @Override
        public void sendFile(FileDescriptor file, long position, long count) throws IOException {
            boolean waited = false;
            while (count > 0) {
                long n = stream.transferFrom(file, position, count);
                if (n > 0) {
                    position += n;
                    count -= n;
                    waited = false;
                } else if (!waited) { // the socket is full
                    awaitWritable();
                    waited = true;
                } else { // writable, yet nothing sent: the file ended
                    throw new EOFException("map output file ends " + count + " bytes short of its index");
                }
            }
        }

        private void awaitWritable() throws IOException {
            if (!stream.awaitWritable(settings.writeTimeoutMillis())) {
                throw new SocketTimeoutException("the reducer took no bytes for " + settings.writeTimeoutMillis()
                        + " ms (mapreduce.shuffle.tipc.write-timeout.ms)");
            }
        }

        synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            connections.remove(this);
            metrics.openConnections.decr();
            try {
                stream.close();
            } catch (IOException e) {
                LOG.debug("closing {}", stream, e);
            }
        }
    }
}
