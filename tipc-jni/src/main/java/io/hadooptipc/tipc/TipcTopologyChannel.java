package io.hadooptipc.tipc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A connection to the node's topology service: it reports when sockets bind
 * (PUBLISHED) and withdraw (WITHDRAWN) names in the ranges subscribed to, cluster
 * wide, and when a subscription's timeout ends it (TIMEOUT). On subscribing, the
 * names already bound are reported at once as PUBLISHED.
 */
public final class TipcTopologyChannel extends TipcChannel {
    /** The service type and instance of the topology server (TIPC_TOP_SRV). */
    static final int TOPOLOGY_SERVICE = 1;
    /** A subscription with this timeout lives until cancelled (TIPC_WAIT_FOREVER). */
    static final int WAIT_FOREVER = -1;

    static final int SUBSCRIPTION_SIZE = 28;
    static final int EVENT_SIZE = 48;
    static final int FILTER_PORTS = 0x1;
    static final int FILTER_SERVICE = 0x2;
    static final int FILTER_CANCEL = 0x4;

    private static final AtomicLong NEXT_HANDLE = new AtomicLong(1);

    private final Map<Long, Subscription> subscriptions = new ConcurrentHashMap<>();
    private final ByteBuffer eventBuffer = ByteBuffer.allocateDirect(EVENT_SIZE).order(ByteOrder.nativeOrder());

    /**
     * What a subscription reports. EVERY_BINDING reports each socket's bind and
     * withdrawal; FIRST_AND_LAST only the first bind in the range and the last withdrawal.
     */
    public enum Mode {
        EVERY_BINDING(FILTER_PORTS), FIRST_AND_LAST(FILTER_SERVICE);

        final int filter;

        Mode(int filter) {
            this.filter = filter;
        }
    }

    /** A subscription made on this channel. */
    public static final class Subscription {
        private final long handle;
        private final TipcServiceRange range;
        private final Mode mode;
        private final Duration timeout;

        public Subscription(long handle, TipcServiceRange range, Mode mode, Duration timeout) {
            this.handle = handle;
            this.range = range;
            this.mode = mode;
            this.timeout = timeout;
        }

        public long handle() {
            return handle;
        }

        public TipcServiceRange range() {
            return range;
        }

        public Mode mode() {
            return mode;
        }

        public Duration timeout() {
            return timeout;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Subscription)) {
                return false;
            }
            Subscription s = (Subscription) o;
            return handle == s.handle && Objects.equals(range, s.range) && mode == s.mode
                    && Objects.equals(timeout, s.timeout);
        }

        @Override
        public int hashCode() {
            return Objects.hash(handle, range, mode, timeout);
        }

        @Override
        public String toString() {
            return "Subscription[handle=" + handle + ", range=" + range + ", mode=" + mode + ", timeout=" + timeout
                    + "]";
        }
    }

    private TipcTopologyChannel(int fd) {
        super(fd);
    }

    /** Connects to this node's topology service. */
    public static TipcTopologyChannel open() throws IOException {
        int fd = openSocket(TipcNative.SOCK_SEQPACKET);
        TipcServiceAddress server = TipcServiceAddress.of(TOPOLOGY_SERVICE, TOPOLOGY_SERVICE);
        int r = TipcNative.connect(fd, Sockaddr.encode(server));
        if (r < 0) {
            TipcNative.close(fd);
            throw TipcException.of("connect to topology service", server, -r);
        }
        return new TipcTopologyChannel(fd);
    }

    /** Subscribes until cancelled. */
    public Subscription subscribe(TipcServiceRange range, Mode mode) throws IOException {
        return subscribe(range, mode, null);
    }

    /**
     * Subscribes to a range; after {@code timeout} (null: never) the subscription ends
     * with a TIMEOUT event.
     */
    public Subscription subscribe(TipcServiceRange range, Mode mode, Duration timeout) throws IOException {
        Subscription s = new Subscription(NEXT_HANDLE.getAndIncrement(), range, mode, timeout);
        subscriptions.put(s.handle(), s);
        sendSubscription(s, s.mode().filter, "subscribe");
        return s;
    }

    /** Ends a subscription; the service sends no event for it afterwards. */
    public void cancel(Subscription s) throws IOException {
        sendSubscription(s, s.mode().filter | FILTER_CANCEL, "cancel subscription");
        subscriptions.remove(s.handle());
    }

    private void sendSubscription(Subscription s, int filter, String call) throws IOException {
        int timeout = s.timeout() == null ? WAIT_FOREVER : (int) Math.min(s.timeout().toMillis(), Integer.MAX_VALUE - 1);
        ByteBuffer wire = ByteBuffer.allocateDirect(SUBSCRIPTION_SIZE);
        encodeSubscription(wire, s.range(), timeout, filter, s.handle());
        wire.flip();
        int r;
        synchronized (this) {
            int descriptor = begin();
            try {
                r = TipcNative.send(descriptor, wire, 0, wire.remaining());
            } finally {
                end();
            }
        }
        check(call, s.range(), ended(r));
    }

    /** Waits for the next event (blocking mode), or returns null if none is ready (non-blocking). */
    public TipcTopologyEvent receive() throws IOException {
        synchronized (eventBuffer) {
            eventBuffer.clear();
            int n;
            int descriptor = begin();
            try {
                n = TipcNative.recv(descriptor, eventBuffer, 0, EVENT_SIZE);
            } finally {
                end();
            }
            ended(n);
            if (n == -TipcException.EAGAIN) {
                return null;
            }
            check("recv from topology service", null, n);
            if (n != EVENT_SIZE) {
                throw new TipcException("recv from topology service", null, 0,
                        "got " + n + " bytes, a tipc_event has " + EVENT_SIZE + " (service connection closed?)");
            }
            return decodeEvent(eventBuffer, subscriptions);
        }
    }

    /** Waits up to {@code timeout} for the next event; null when none came. */
    public TipcTopologyEvent receive(Duration timeout) throws IOException {
        int millis = (int) Math.min(Math.max(timeout.toMillis(), 0), Integer.MAX_VALUE);
        return await(TipcNative.POLLIN, millis, "poll topology service") ? receive() : null;
    }

    /** Packs a struct tipc_subscr in host byte order. */
    static void encodeSubscription(ByteBuffer b, TipcServiceRange range, int timeout, int filter, long handle) {
        b.order(ByteOrder.nativeOrder())
                .putInt(range.type()).putInt(range.lower()).putInt(range.upper())
                .putInt(timeout).putInt(filter).putLong(handle);
    }

    /** The subscriptions in force: made, and neither cancelled nor ended by their timeout. */
    public Collection<Subscription> subscriptions() {
        return Collections.unmodifiableList(new ArrayList<>(subscriptions.values()));
    }

    /**
     * Unpacks a struct tipc_event; the subscription is found by the handle it echoes, and
     * forgotten when the event is its TIMEOUT (the service reports nothing more for it).
     */
    static TipcTopologyEvent decodeEvent(ByteBuffer b, Map<Long, Subscription> known) {
        b.order(ByteOrder.nativeOrder()).rewind();
        int kind = b.getInt();
        int lower = b.getInt();
        int upper = b.getInt();
        TipcSocketAddress socket = TipcSocketAddress.of(b.getInt(), b.getInt());
        b.position(b.position() + 5 * Integer.BYTES); // the echoed subscription: range, timeout, filter
        long handle = b.getLong();
        TipcTopologyEvent.Kind k = TipcTopologyEvent.Kind.of(kind);
        Subscription s = k == TipcTopologyEvent.Kind.TIMEOUT ? known.remove(handle) : known.get(handle);
        return new TipcTopologyEvent(k, lower, upper, socket, s);
    }

    @Override
    public TipcTopologyChannel configureBlocking(boolean block) throws IOException {
        super.configureBlocking(block);
        return this;
    }

}
