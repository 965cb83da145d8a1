package io.hadooptipc.tipc;

import java.util.Objects;

/**
 * A topology service report: {@code socket} bound ({@link Kind#PUBLISHED}) or
 * withdrew ({@link Kind#WITHDRAWN}) the instances {@code lower..upper}, or the
 * subscription ended ({@link Kind#TIMEOUT}).
 */
public final class TipcTopologyEvent {
    private final Kind kind;
    private final int lower;
    private final int upper;
    private final TipcSocketAddress socket;
    private final TipcTopologyChannel.Subscription subscription;

    public TipcTopologyEvent(Kind kind, int lower, int upper, TipcSocketAddress socket,
                             TipcTopologyChannel.Subscription subscription) {
        this.kind = kind;
        this.lower = lower;
        this.upper = upper;
        this.socket = socket;
        this.subscription = subscription;
    }

    public enum Kind {
        PUBLISHED, WITHDRAWN, TIMEOUT;

        static Kind of(int wire) {
            switch (wire) {
                case 1:
                    return PUBLISHED;
                case 2:
                    return WITHDRAWN;
                case 3:
                    return TIMEOUT;
                default:
                    throw new IllegalArgumentException("unknown tipc_event type " + wire);
            }
        }
    }

    /** The node the reported socket is on. */
    public int node() {
        return socket.node();
    }

    public Kind kind() {
        return kind;
    }

    public int lower() {
        return lower;
    }

    public int upper() {
        return upper;
    }

    public TipcSocketAddress socket() {
        return socket;
    }

    public TipcTopologyChannel.Subscription subscription() {
        return subscription;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TipcTopologyEvent)) {
            return false;
        }
        TipcTopologyEvent e = (TipcTopologyEvent) o;
        return kind == e.kind && lower == e.lower && upper == e.upper && Objects.equals(socket, e.socket)
                && Objects.equals(subscription, e.subscription);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, lower, upper, socket, subscription);
    }

    @Override
    public String toString() {
        return "TipcTopologyEvent[kind=" + kind + ", lower=" + lower + ", upper=" + upper + ", socket=" + socket
                + ", subscription=" + subscription + "]";
    }
}
