package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.tipc.TipcSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A reduce task's TIPC streams to map hosts: each fetch takes a kept-alive one here or
 * opens a new one, and gives back a stream that can carry another request. At most
 * {@code maxIdlePerHost} wait per host (the stock scheduler gives a host to one fetcher at
 * a time, so one is all a task reuses); an idle stream is closed after the idle timeout,
 * or the server's shorter {@code Keep-Alive} timeout, when its host leaves TIPC, and when
 * the pool closes. A stream keeps the timeouts it was opened with, so it is reused only
 * by a fetch with the same ones. A stream opened ahead of a host's first fetch ({@link #openAhead})
 * waits here like a kept-alive one, with the timeouts of the task's first fetch.
 */
final class StreamPool implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamPool.class);

    /** A stream waiting for its host's next request; run by the expiry timer, it closes the stream. */
    private final class Idle implements Runnable {
        final ShuffleServiceName name;
        final BufferedStream stream;
        final Timeouts timeouts;
        /** Opened ahead, no request sent on it yet. */
        final boolean ahead;
        ScheduledFuture<?> expiry; // guarded by the pool

        Idle(ShuffleServiceName name, BufferedStream stream, Timeouts timeouts, boolean ahead) {
            this.name = name;
            this.stream = stream;
            this.timeouts = timeouts;
            this.ahead = ahead;
        }

        @Override
        public void run() {
            expire(this);
        }
    }

    /** The expiry timer's thread: a daemon, so that it keeps no task JVM alive. */
    private static final class ExpiryThreads implements ThreadFactory {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "TIPC shuffle idle streams");
            t.setDaemon(true);
            return t;
        }
    }

    private final StreamTransport transport;
    private final TransferCounters counters;
    private final int maxIdlePerHost;
    private final long idleTimeoutMillis;
    private final ScheduledThreadPoolExecutor expiries; // null when no stream is kept
    private final Map<ShuffleServiceName, Deque<Idle>> idle = new HashMap<>(); // guarded by this
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong reused = new AtomicLong();
    private final AtomicLong openedAhead = new AtomicLong();
    private final AtomicLong aheadUsed = new AtomicLong();
    private final AtomicBoolean unprovenSkipped = new AtomicBoolean();
    /** Publications that did not prove the job token when a fetch connected to them: tried last. */
    private final Set<TipcSocketAddress> unprovenPublications = ConcurrentHashMap.newKeySet();
    /** The hosts a fetch has asked a stream for: none is opened ahead to them. */
    private final Set<ShuffleServiceName> asked = ConcurrentHashMap.newKeySet();
    /** The first fetch's timeouts, which streams opened ahead take (every fetcher of a task has the same). */
    private Timeouts fetchTimeouts; // guarded by this
    private boolean closed; // guarded by this

    StreamPool(StreamTransport transport, TransferCounters counters, int maxIdlePerHost, long idleTimeoutMillis) {
        if (maxIdlePerHost < 0 || idleTimeoutMillis <= 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.REUSE_MAX_IDLE_PER_HOST + " must not be negative and "
                    + TipcShuffleConfig.REUSE_IDLE_TIMEOUT_MS + " must be positive: " + maxIdlePerHost + ", "
                    + idleTimeoutMillis);
        }
        this.transport = transport;
        this.counters = counters;
        this.maxIdlePerHost = maxIdlePerHost;
        this.idleTimeoutMillis = idleTimeoutMillis;
        if (maxIdlePerHost > 0) {
            expiries = new ScheduledThreadPoolExecutor(1, new ExpiryThreads());
            expiries.setRemoveOnCancelPolicy(true);
        } else {
            expiries = null;
        }
    }

    /** The pool as configured: no stream kept when reuse is off. */
    static StreamPool of(Configuration conf, StreamTransport transport, TransferCounters counters) {
        boolean reuse = conf.getBoolean(TipcShuffleConfig.REUSE_ENABLED, TipcShuffleConfig.DEFAULT_REUSE_ENABLED);
        return new StreamPool(transport, counters,
                reuse ? conf.getInt(TipcShuffleConfig.REUSE_MAX_IDLE_PER_HOST, TipcShuffleConfig.DEFAULT_REUSE_MAX_IDLE_PER_HOST) : 0,
                conf.getLong(TipcShuffleConfig.REUSE_IDLE_TIMEOUT_MS, TipcShuffleConfig.DEFAULT_REUSE_IDLE_TIMEOUT_MS));
    }

    /** Whether fetches should ask servers to keep their streams alive. */
    boolean keepsStreams() {
        return maxIdlePerHost > 0;
    }

    /** The host's most recently used idle stream with these timeouts, or null. */
    BufferedStream reuse(ShuffleServiceName name, Timeouts timeouts) {
        asked.add(name);
        Idle found = null;
        synchronized (this) {
            if (fetchTimeouts == null) {
                fetchTimeouts = timeouts;
                notifyAll();
            }
            Deque<Idle> streams = idle.get(name);
            if (streams != null) {
                for (Iterator<Idle> it = streams.descendingIterator(); it.hasNext(); ) {
                    Idle i = it.next();
                    if (i.timeouts.equals(timeouts)) {
                        it.remove();
                        found = i;
                        break;
                    }
                }
                if (streams.isEmpty()) {
                    idle.remove(name);
                }
            }
        }
        if (found == null) {
            return null;
        }
        found.expiry.cancel(false);
        if (found.ahead) {
            aheadUsed.incrementAndGet();
            counters.aheadStreamUsed();
        } else {
            reused.incrementAndGet();
            counters.streamReused();
        }
        return found.stream;
    }

    /** Connects a new stream to the host, which the fetch's URL names {@code host}. */
    BufferedStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        return opened(transport.open(name, host, timeouts));
    }

    /**
     * Connects a stream to a host no fetch has asked for yet and keeps it for the host's first fetch, with
     * the timeouts of the task's first fetch (waited for); does nothing once a fetch has asked for the host,
     * when no stream may be kept, or when the pool is closed.
     *
     * @throws IOException the stream could not be opened; the host's fetch will open its own
     */
    void openAhead(ShuffleServiceName name, String host) throws IOException, InterruptedException {
        Timeouts timeouts;
        synchronized (this) {
            while (fetchTimeouts == null && !closed) {
                wait();
            }
            if (closed || maxIdlePerHost == 0 || asked.contains(name)) {
                return;
            }
            timeouts = fetchTimeouts;
        }
        BufferedStream stream = open(name, host, timeouts);
        openedAhead.incrementAndGet();
        counters.streamOpenedAhead();
        keep(new Idle(name, stream, timeouts, true), idleTimeoutMillis);
    }

    /** True the first time in this task a fetch skipped a server that could not prove it holds the job token. */
    boolean firstUnprovenSkipped() {
        return unprovenSkipped.compareAndSet(false, true);
    }

    /**
     * The sockets that publish the host's name now ({@link StreamTransport#publications}), those that did not prove
     * the job token to an earlier fetch of this task last: each costs a fetch up to its proof timeout.
     */
    List<TipcSocketAddress> publications(ShuffleServiceName name) throws IOException {
        List<TipcSocketAddress> all = transport.publications(name);
        List<TipcSocketAddress> ordered = new ArrayList<>(all.size());
        for (TipcSocketAddress p : all) {
            if (!unprovenPublications.contains(p)) {
                ordered.add(p);
            }
        }
        for (TipcSocketAddress p : all) {
            if (unprovenPublications.contains(p)) {
                ordered.add(p);
            }
        }
        return ordered;
    }

    /** Whether {@code publication} proved the job token to the last fetch that connected to it. */
    void proved(TipcSocketAddress publication, boolean proved) {
        if (proved) {
            unprovenPublications.remove(publication);
        } else {
            unprovenPublications.add(publication);
        }
    }

    /** Connects a new stream to one of the host's {@link #publications}. */
    BufferedStream open(ShuffleServiceName name, TipcSocketAddress publication, String host, Timeouts timeouts)
            throws IOException {
        return opened(transport.open(name, publication, host, timeouts));
    }

    private BufferedStream opened(ShuffleStream wire) {
        BufferedStream stream = new BufferedStream(wire);
        opened.incrementAndGet();
        counters.streamOpened();
        return stream;
    }

    /**
     * Takes back a stream ready for the host's next request, to be closed after
     * {@code serverKeepAliveMillis} or the idle timeout, whichever is shorter; closes it
     * when the host has enough idle streams already.
     */
    void release(ShuffleServiceName name, Timeouts timeouts, BufferedStream stream, long serverKeepAliveMillis) {
        keep(new Idle(name, stream, timeouts, false), Math.min(idleTimeoutMillis, serverKeepAliveMillis));
    }

    private void keep(Idle i, long idleMillis) {
        synchronized (this) {
            Deque<Idle> streams = idle.get(i.name);
            if (!closed && (streams == null ? 0 : streams.size()) < maxIdlePerHost) {
                if (streams == null) {
                    streams = new ArrayDeque<>();
                    idle.put(i.name, streams);
                }
                i.expiry = expiries.schedule(i, idleMillis, TimeUnit.MILLISECONDS);
                streams.addLast(i);
                return;
            }
        }
        BufferedStream.closeQuietly(i.stream);
    }

    /** Closes the host's idle streams: it left TIPC. */
    void closeIdle(ShuffleServiceName name) {
        Deque<Idle> streams;
        synchronized (this) {
            streams = idle.remove(name);
        }
        if (streams != null) {
            for (Idle i : streams) {
                i.expiry.cancel(false);
                BufferedStream.closeQuietly(i.stream);
            }
        }
    }

    /** Closes every idle stream and keeps none from now on; logs what the pool did. */
    @Override
    public void close() {
        List<Idle> all = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            notifyAll(); // an opener waiting for the first fetch's timeouts
            for (Deque<Idle> streams : idle.values()) {
                all.addAll(streams);
            }
            idle.clear();
        }
        if (expiries != null) {
            expiries.shutdownNow();
        }
        for (Idle i : all) {
            BufferedStream.closeQuietly(i.stream);
        }
        LOG.info("TIPC shuffle streams: {} opened ({} ahead of their host's first fetch, {} of those used), {} requests"
                + " sent on kept-alive ones", opened.get(), openedAhead.get(), aheadUsed.get(), reused.get());
    }

    private void expire(Idle i) {
        synchronized (this) {
            Deque<Idle> streams = idle.get(i.name);
            if (streams == null || !streams.remove(i)) {
                return; // reused meanwhile
            }
            if (streams.isEmpty()) {
                idle.remove(i.name);
            }
        }
        BufferedStream.closeQuietly(i.stream);
    }

}
