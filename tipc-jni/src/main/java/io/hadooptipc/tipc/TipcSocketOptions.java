package io.hadooptipc.tipc;

import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * TIPC's socket options (SOL_TIPC), for {@link TipcChannel#setOption}. The
 * standard {@link StandardSocketOptions#SO_SNDBUF} and {@link StandardSocketOptions#SO_RCVBUF}
 * are supported too.
 */
public final class TipcSocketOptions {
    /** Message importance, {@link #LOW_IMPORTANCE}..{@link #CRITICAL_IMPORTANCE}: the link's congestion limit scales with it. */
    public static final SocketOption<Integer> IMPORTANCE = new Option<>("TIPC_IMPORTANCE", Integer.class);
    /** Milliseconds a blocking connect waits for the peer (kernel default 8000). */
    public static final SocketOption<Integer> CONNECT_TIMEOUT = new Option<>("TIPC_CONN_TIMEOUT", Integer.class);
    /** Send small stream writes at once instead of bundling them (TIPC's Nagle), write-only. */
    public static final SocketOption<Boolean> NODELAY = new Option<>("TIPC_NODELAY", Boolean.class);
    /** Messages this socket sends may be dropped under congestion. */
    public static final SocketOption<Boolean> SRC_DROPPABLE = new Option<>("TIPC_SRC_DROPPABLE", Boolean.class);
    /** Messages this socket sends that cannot be delivered are dropped instead of returned. */
    public static final SocketOption<Boolean> DEST_DROPPABLE = new Option<>("TIPC_DEST_DROPPABLE", Boolean.class);
    /**
     * Milliseconds a read in blocking mode waits for a byte before it returns none (SO_RCVTIMEO; 0, the
     * default: for ever), write-only: a timeout the kernel keeps, with no poll(2) before each read.
     */
    public static final SocketOption<Integer> READ_TIMEOUT = new Option<>("SO_RCVTIMEO", Integer.class);
    /** Milliseconds a write in blocking mode waits for room before it sends nothing (SO_SNDTIMEO; 0: for ever), write-only. */
    public static final SocketOption<Integer> WRITE_TIMEOUT = new Option<>("SO_SNDTIMEO", Integer.class);
    /** Messages waiting in this socket's receive queue, read-only. */
    public static final SocketOption<Integer> RECEIVE_QUEUE_DEPTH = new Option<>("TIPC_SOCK_RECVQ_DEPTH", Integer.class);

    public static final int LOW_IMPORTANCE = 0;
    public static final int MEDIUM_IMPORTANCE = 1;
    public static final int HIGH_IMPORTANCE = 2;
    public static final int CRITICAL_IMPORTANCE = 3;

    /** An option as setsockopt(2) names it: its level and its number there. */
    public static final class Native {
        private final int level;
        private final int name;

        public Native(int level, int name) {
            this.level = level;
            this.name = name;
        }

        public int level() {
            return level;
        }

        public int name() {
            return name;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Native)) {
                return false;
            }
            Native n = (Native) o;
            return level == n.level && name == n.name;
        }

        @Override
        public int hashCode() {
            return 31 * level + name;
        }

        @Override
        public String toString() {
            return "Native[level=" + level + ", name=" + name + "]";
        }
    }

    private static final Map<SocketOption<?>, Native> NATIVE = new HashMap<>();

    static {
        NATIVE.put(IMPORTANCE, new Native(TipcNative.SOL_TIPC, 127));
        NATIVE.put(SRC_DROPPABLE, new Native(TipcNative.SOL_TIPC, 128));
        NATIVE.put(DEST_DROPPABLE, new Native(TipcNative.SOL_TIPC, 129));
        NATIVE.put(CONNECT_TIMEOUT, new Native(TipcNative.SOL_TIPC, 130));
        NATIVE.put(RECEIVE_QUEUE_DEPTH, new Native(TipcNative.SOL_TIPC, 132));
        NATIVE.put(NODELAY, new Native(TipcNative.SOL_TIPC, 138));
        NATIVE.put(StandardSocketOptions.SO_SNDBUF, new Native(TipcNative.SOL_SOCKET, TipcNative.SO_SNDBUF));
        NATIVE.put(StandardSocketOptions.SO_RCVBUF, new Native(TipcNative.SOL_SOCKET, TipcNative.SO_RCVBUF));
        NATIVE.put(READ_TIMEOUT, new Native(TipcNative.SOL_SOCKET, TipcNative.SO_RCVTIMEO));
        NATIVE.put(WRITE_TIMEOUT, new Native(TipcNative.SOL_SOCKET, TipcNative.SO_SNDTIMEO));
    }

    /** Options whose value the kernel takes as a struct timeval of milliseconds, not an int. */
    private static final Set<SocketOption<?>> TIMEOUTS =
            Collections.unmodifiableSet(new HashSet<SocketOption<?>>(Arrays.asList(READ_TIMEOUT, WRITE_TIMEOUT)));

    static final Set<SocketOption<?>> SUPPORTED = Collections.unmodifiableSet(NATIVE.keySet());

    private TipcSocketOptions() {
    }

    static <T> void set(TipcChannel channel, SocketOption<T> option, T value) throws IOException {
        Native n = lookup(option);
        if (value == null) {
            throw new IllegalArgumentException(option.name() + " cannot be null");
        }
        int raw = value instanceof Boolean ? ((Boolean) value ? 1 : 0) : (Integer) value;
        if (TIMEOUTS.contains(option) && raw < 0) {
            throw new IllegalArgumentException(option.name() + " must not be negative: " + raw);
        }
        int r;
        int fd = channel.begin();
        try {
            r = TIMEOUTS.contains(option) ? TipcNative.setTimeout(fd, n.name, raw)
                    : TipcNative.setsockopt(fd, n.level, n.name, raw);
        } finally {
            channel.end();
        }
        TipcChannel.check("setsockopt(" + option.name() + "=" + value + ")", null, channel.ended(r));
    }

    static <T> T get(TipcChannel channel, SocketOption<T> option) throws IOException {
        Native n = lookup(option);
        if (TIMEOUTS.contains(option)) {
            throw new UnsupportedOperationException(option.name() + " can be set, not read");
        }
        int[] value = new int[1];
        int r;
        int fd = channel.begin();
        try {
            r = TipcNative.getsockopt(fd, n.level, n.name, value);
        } finally {
            channel.end();
        }
        TipcChannel.check("getsockopt(" + option.name() + ")", null, channel.ended(r));
        Object boxed = option.type() == Boolean.class ? (Object) (value[0] != 0) : (Object) value[0];
        return option.type().cast(boxed);
    }

    /**
     * {@code option} as setsockopt(2) names it, for code that sets it on a TIPC descriptor of its own
     * (Netty's epoll channels take such options by number).
     */
    public static Native nativeOf(SocketOption<?> option) {
        if (TIMEOUTS.contains(option)) {
            throw new UnsupportedOperationException(option.name() + " takes a struct timeval, not an int");
        }
        return lookup(option);
    }

    private static Native lookup(SocketOption<?> option) {
        Native n = NATIVE.get(option);
        if (n == null) {
            throw new UnsupportedOperationException("'" + option.name() + "' is not a TIPC socket option");
        }
        return n;
    }

    /**
     * One option, equal only to itself as the JDK's are. Not a record: NATIVE's lookup would hash it
     * with a generated hashCode, whose ObjectMethods bootstrap costs a fresh JVM's first connect
     * tens of method-handle classes under emulation.
     */
    private static final class Option<T> implements SocketOption<T> {
        private final String name;
        private final Class<T> type;

        Option(String name, Class<T> type) {
            this.name = name;
            this.type = type;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Class<T> type() {
            return type;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
