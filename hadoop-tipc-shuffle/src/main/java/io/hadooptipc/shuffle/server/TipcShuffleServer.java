package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
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
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TIPC side of the shuffle server. One thread accepts connections and reads
 * request heads without blocking; a complete head goes to a worker thread, which
 * answers it with blocking writes and sendfile, then hands a kept-alive connection
 * back. Over the connection limit a new connection gets 429 with Retry-After, as
 * from the stock handler; an idle or half-sent connection is closed after the
 * keep-alive timeout.
 */
public final class TipcShuffleServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleServer.class);
    private static final long RETRY_AFTER_MILLIS = 1000;

    /**
     * @param maxConnections stock {@code mapreduce.shuffle.max.connections}; 0 = no limit
     * @param workerThreads  stock {@code mapreduce.shuffle.max.threads}, resolved (never 0)
     */
    public record Settings(int maxConnections, int workerThreads, int maxHeadBytes, int idleTimeoutMillis) {
    }

    private final ShuffleResponder responder;
    private final TipcShuffleMetrics metrics;
    private final Settings settings;
    private final TipcServerSocketChannel listener;
    private final TipcSelector selector;
    private final ExecutorService workers;
    private final Queue<Connection> returning = new ConcurrentLinkedQueue<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Thread loop;
    private volatile boolean running = true;

    private TipcShuffleServer(ShuffleResponder responder, TipcShuffleMetrics metrics, Settings settings,
                              TipcServerSocketChannel listener, TipcSelector selector) {
        this.responder = responder;
        this.metrics = metrics;
        this.settings = settings;
        this.listener = listener;
        this.selector = selector;
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(settings.workerThreads(), r -> daemon(r, "TIPC shuffle worker #" + n.incrementAndGet()));
        this.loop = daemon(this::run, "TIPC shuffle acceptor");
    }

    /** Binds {@code names} (each in its own scope) and starts serving. */
    public static TipcShuffleServer start(ShuffleResponder responder, TipcShuffleMetrics metrics, Settings settings,
                                          int serviceType, List<ShuffleServiceName> names) throws IOException {
        TipcServerSocketChannel listener = TipcServerSocketChannel.open();
        TipcSelector selector = null;
        try {
            for (ShuffleServiceName name : names) {
                listener.bind(name.tipcAddress(serviceType), name.scope());
            }
            listener.configureBlocking(false);
            selector = TipcSelector.open();
            selector.register(listener, SelectionKey.OP_ACCEPT, null);
        } catch (IOException | RuntimeException e) {
            listener.close();
            if (selector != null) {
                selector.close();
            }
            throw e;
        }
        TipcShuffleServer server = new TipcShuffleServer(responder, metrics, settings, listener, selector);
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
                selector.select(Math.max(1, settings.idleTimeoutMillis() / 4));
                for (Connection c; (c = returning.poll()) != null; ) {
                    c.resumeReading();
                }
                for (Iterator<TipcSelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    TipcSelectionKey key = it.next();
                    it.remove();
                    if (key.isValid() && key.isAcceptable()) {
                        acceptAll();
                    } else if (key.isValid() && key.isReadable()) {
                        ((Connection) key.attachment()).readHead(key);
                    }
                }
                closeIdle();
            }
        } catch (IOException | RuntimeException e) {
            if (running) {
                LOG.error("TIPC shuffle acceptor failed; TIPC shuffle stops, HTTP/TCP goes on", e);
            }
        } finally {
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("closing selector", e);
            }
        }
    }

    private void acceptAll() throws IOException {
        for (TipcSocketChannel ch; (ch = listener.accept()) != null; ) {
            metrics.connections.incr();
            Connection c = new Connection(ch);
            metrics.openConnections.incr();
            connections.add(c);
            int now = connections.size();
            if (settings.maxConnections() > 0 && now > settings.maxConnections()) {
                LOG.info("TIPC shuffle connections ({}) over mapreduce.shuffle.max.connections ({}): 429",
                        now, settings.maxConnections());
                c.refuse(429, "", RETRY_AFTER_MILLIS);
                continue;
            }
            ch.configureBlocking(false);
            selector.register(ch, SelectionKey.OP_READ, c);
        }
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

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** One accepted connection; the selector thread and one worker take turns with it. */
    private final class Connection implements ResponseStream {
        final TipcSocketChannel channel;
        byte[] buf = new byte[2048];
        int filled;
        long idleSince = System.nanoTime();
        private boolean closed;

        Connection(TipcSocketChannel channel) {
            this.channel = channel;
        }

        void readHead(TipcSelectionKey selected) {
            try {
                if (filled == buf.length) {
                    buf = Arrays.copyOf(buf, Math.min(buf.length * 2, settings.maxHeadBytes() + 4));
                }
                int n = channel.read(ByteBuffer.wrap(buf, filled, buf.length - filled));
                if (n < 0) {
                    close();
                    return;
                }
                int scanFrom = Math.max(0, filled - 3);
                filled += n;
                idleSince = System.nanoTime();
                int end = HttpHead.endOf(buf, scanFrom, filled);
                if (end < 0) {
                    if (filled > settings.maxHeadBytes()) {
                        selected.cancel();
                        refuse(431, "request head over " + settings.maxHeadBytes() + " bytes", null);
                    }
                    return;
                }
                HttpHead head;
                try {
                    head = HttpHead.parse(buf, 0, end);
                } catch (HttpHead.MalformedHttpException e) {
                    selected.cancel();
                    refuse(400, e.getMessage(), null);
                    return;
                }
                // Keep anything pipelined after this head for the next turn.
                System.arraycopy(buf, end, buf, 0, filled - end);
                filled -= end;
                selected.cancel();
                workers.execute(() -> answer(head));
            } catch (IOException e) {
                LOG.debug("TIPC shuffle read failed on {}", channel, e);
                close();
            }
        }

        private void answer(HttpHead head) {
            try {
                channel.configureBlocking(true);
                if (responder.respond(head, this) && running) {
                    channel.configureBlocking(false);
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

        void resumeReading() {
            idleSince = System.nanoTime();
            try {
                TipcSelectionKey key = selector.register(channel, SelectionKey.OP_READ, this);
                if (filled > 0) { // a pipelined request may already be complete
                    readHead(key);
                }
            } catch (IOException | RuntimeException e) {
                close();
            }
        }

        void refuse(int status, String message, Long retryAfterMillis) {
            try {
                channel.configureBlocking(true);
                responder.sendError(this, null, status, message, retryAfterMillis);
            } catch (IOException e) {
                LOG.debug("could not send {} on {}", status, channel, e);
            } finally {
                close();
            }
        }

        @Override
        public void writeFully(ByteBuffer bytes) throws IOException {
            channel.writeFully(bytes);
        }

        @Override
        public void sendFile(FileDescriptor file, long position, long count) throws IOException {
            while (count > 0) {
                long n = channel.transferFrom(file, position, count);
                if (n <= 0) {
                    throw new EOFException("map output file ends " + count + " bytes short of its index");
                }
                position += n;
                count -= n;
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
}
