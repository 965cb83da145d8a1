package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcException;
import io.hadooptipc.tipc.TipcSelectionKey;
import io.hadooptipc.tipc.TipcSelector;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.Iterator;
import java.util.List;
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
 * The TIPC side of the shuffle server. One thread accepts connections and reads
 * request heads without blocking; a complete head goes to a worker thread, which
 * answers it with non-blocking writes and sendfile, waiting at most the write timeout
 * each time the reducer takes no bytes, then hands a kept-alive connection back.
 * Refusals (400, 431, and 429 with Retry-After over the connection limit or when the
 * worker queue is full) are written without blocking, then the connection is closed.
 * An idle or half-sent connection is closed after the keep-alive timeout. A failure
 * of one connection closes that connection only; when accept runs out of file
 * descriptors the acceptor pauses accepting and tries again.
 */
public final class TipcShuffleServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleServer.class);
    private static final long RETRY_AFTER_MILLIS = 1000; // stock ShuffleHandler.FETCH_RETRY_DELAY
    private static final long ACCEPT_BACKOFF_MILLIS = 500;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;
    private static final int ENOMEM = 12;
    private static final int ENOBUFS = 105;

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
    private final TipcServerSocketChannel listener;
    private final TipcSelector selector;
    private final TipcSelectionKey acceptKey;
    private final ThreadPoolExecutor workers;
    private final Queue<Connection> returning = new ConcurrentLinkedQueue<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Thread loop;
    private long acceptPausedUntil; // System.nanoTime(); 0: accepting
    private volatile boolean running = true;

    private TipcShuffleServer(ShuffleResponder responder, TipcShuffleMetrics metrics, Settings settings,
                              TipcServerSocketChannel listener, TipcSelector selector, TipcSelectionKey acceptKey) {
        this.responder = responder;
        this.metrics = metrics;
        this.settings = settings;
        this.listener = listener;
        this.selector = selector;
        this.acceptKey = acceptKey;
        AtomicInteger n = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(settings.workerThreads(), settings.workerThreads(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(Math.max(1, settings.maxQueuedRequests())),
                r -> new Worker(r, "TIPC shuffle worker #" + n.incrementAndGet()));
        this.loop = new Thread(this::run, "TIPC shuffle acceptor");
        this.loop.setDaemon(true);
    }

    /** Binds {@code names} (each in its own scope) and starts serving. */
    public static TipcShuffleServer start(ShuffleResponder responder, TipcShuffleMetrics metrics, Settings settings,
                                          int serviceType, List<ShuffleServiceName> names) throws IOException {
        TipcServerSocketChannel listener = TipcServerSocketChannel.open();
        TipcSelector selector = null;
        TipcSelectionKey acceptKey;
        try {
            for (ShuffleServiceName name : names) {
                listener.bind(name.tipcAddress(serviceType), name.scope());
            }
            listener.configureBlocking(false);
            selector = TipcSelector.open();
            acceptKey = selector.register(listener, SelectionKey.OP_ACCEPT, null);
        } catch (IOException | RuntimeException e) {
            listener.close();
            if (selector != null) {
                selector.close();
            }
            throw e;
        }
        TipcShuffleServer server = new TipcShuffleServer(responder, metrics, settings, listener, selector, acceptKey);
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
        listener.close();
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
        for (Iterator<TipcSelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
            TipcSelectionKey key = it.next();
            it.remove();
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
            TipcSocketChannel ch;
            try {
                ch = listener.accept();
            } catch (TipcException e) {
                if (isOutOfResources(e.errno())) {
                    // Level-triggered: a pending connection would wake us at once, so stop asking for a while.
                    LOG.warn("TIPC shuffle cannot accept ({}); trying again in {} ms", e.getMessage(),
                            ACCEPT_BACKOFF_MILLIS);
                    acceptKey.interestOps(0);
                    acceptPausedUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ACCEPT_BACKOFF_MILLIS);
                } else {
                    LOG.info("TIPC shuffle accept failed: {}", e.getMessage());
                }
                return;
            } catch (IOException e) {
                LOG.info("TIPC shuffle accept failed: {}", e.getMessage());
                return;
            }
            if (ch == null) {
                return;
            }
            metrics.connections.incr();
            Connection c = new Connection(ch);
            metrics.openConnections.incr();
            connections.add(c);
            int now = connections.size();
            if (settings.maxConnections() > 0 && now > settings.maxConnections()) {
                LOG.info("TIPC shuffle connections ({}) over mapreduce.shuffle.max.connections ({}): 429",
                        now, settings.maxConnections());
                c.overLimit = true; // refused once its head is in, so the 429 can name the server it asked for
            }
            try {
                ch.configureBlocking(false);
                selector.register(ch, SelectionKey.OP_READ, c);
            } catch (IOException | RuntimeException e) {
                LOG.info("TIPC shuffle connection {} not served: {}", ch, e.toString());
                c.close();
            }
        }
    }

    private static boolean isOutOfResources(int errno) {
        return errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM;
    }

    private void closeIdle() {
        long now = System.nanoTime();
        long limit = TimeUnit.MILLISECONDS.toNanos(settings.idleTimeoutMillis());
        for (TipcSelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection c && now - c.idleSince > limit) {
                LOG.debug("closing idle TIPC shuffle connection {}", c.channel);
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
        final TipcSocketChannel channel;
        final RequestHeads heads = new RequestHeads(settings.maxHeadBytes());
        volatile long idleSince = System.nanoTime();
        boolean overLimit;
        private boolean closed;

        Connection(TipcSocketChannel channel) {
            this.channel = channel;
        }

        /** Selector thread: bytes have arrived. */
        void readable(TipcSelectionKey key) {
            try {
                int n = channel.read(heads.space());
                if (n < 0) {
                    close();
                    return;
                }
                heads.filled(n);
                idleSince = System.nanoTime();
                dispatch(key);
            } catch (IOException | RuntimeException e) {
                LOG.debug("TIPC shuffle read failed on {}", channel, e);
                close();
            }
        }

        /** Selector thread: hands a complete head to a worker, or refuses it. */
        private void dispatch(TipcSelectionKey key) {
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
                refuse(429, head, "", RETRY_AFTER_MILLIS);
                return;
            }
            try {
                workers.execute(() -> answer(head));
            } catch (RejectedExecutionException e) {
                if (running) {
                    LOG.info("TIPC shuffle worker queue full ({} waiting): 429", workers.getQueue().size());
                }
                refuse(429, head, "", RETRY_AFTER_MILLIS);
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
                LOG.info("TIPC shuffle response on {} failed: {}", channel, e.toString());
                close();
            }
        }

        /** Selector thread: a worker is done with a kept-alive connection. */
        void resumeReading() {
            idleSince = System.nanoTime();
            try {
                TipcSelectionKey key = selector.register(channel, SelectionKey.OP_READ, this);
                if (heads.hasBytes()) { // a pipelined request may already be complete
                    dispatch(key);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("TIPC shuffle connection {} not resumed", channel, e);
                close();
            }
        }

        /** Selector thread: writes what the socket takes at once of an error response, then closes. */
        private void refuse(int status, HttpHead request, String message, Long retryAfterMillis) {
            try {
                ByteBuffer response = responder.errorResponse(request, status, message, retryAfterMillis);
                channel.write(response);
                if (response.hasRemaining()) {
                    LOG.debug("{} to {} cut short: the socket was full", status, channel);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("could not send {} on {}", status, channel, e);
            } finally {
                close();
            }
        }

        @Override
        public void writeFully(ByteBuffer bytes) throws IOException {
            while (bytes.hasRemaining()) {
                if (channel.write(bytes) == 0) {
                    awaitWritable();
                }
            }
        }

        @Override
        public void sendFile(FileDescriptor file, long position, long count) throws IOException {
            boolean waited = false;
            while (count > 0) {
                long n = channel.transferFrom(file, position, count);
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
            if (!((Worker) Thread.currentThread()).awaitWritable(channel, settings.writeTimeoutMillis())) {
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
                channel.close();
            } catch (IOException e) {
                LOG.debug("closing {}", channel, e);
            }
        }
    }

    /** A worker thread, with its own selector for waiting until a reducer takes more bytes. */
    private static final class Worker extends Thread {
        private static final long SLICE_MILLIS = 1000; // how often a wait looks whether the channel was closed
        private TipcSelector writable;

        Worker(Runnable r, String name) {
            super(r, name);
            setDaemon(true);
        }

        /** Waits until {@code channel} can take bytes, for at most {@code timeoutMillis}; false on timeout. */
        boolean awaitWritable(TipcSocketChannel channel, int timeoutMillis) throws IOException {
            if (writable == null) {
                writable = TipcSelector.open();
            }
            TipcSelectionKey key = writable.register(channel, SelectionKey.OP_WRITE, null);
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
                for (long left; (left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) > 0; ) {
                    if (writable.select(Math.min(left, SLICE_MILLIS)) > 0) {
                        return true;
                    }
                    if (!channel.isOpen() || isInterrupted()) {
                        throw new IOException(channel + " closed while waiting to write");
                    }
                }
                return false;
            } finally {
                key.cancel();
                writable.selectedKeys().clear();
            }
        }

        @Override
        public void run() {
            try {
                super.run();
            } finally {
                if (writable != null) {
                    try {
                        writable.close();
                    } catch (IOException e) {
                        LOG.debug("closing a worker's selector", e);
                    }
                }
            }
        }
    }
}
