package io.hadooptipc.tipc;

/**
 * A topology service report: {@code socket} bound ({@link Kind#PUBLISHED}) or
 * withdrew ({@link Kind#WITHDRAWN}) the instances {@code lower..upper}, or the
 * subscription ended ({@link Kind#TIMEOUT}).
 */
public record TipcTopologyEvent(Kind kind, int lower, int upper, TipcSocketAddress socket,
                                TipcTopologyChannel.Subscription subscription) {

    public enum Kind {
        PUBLISHED, WITHDRAWN, TIMEOUT;

        static Kind of(int wire) {
            return switch (wire) {
                case 1 -> PUBLISHED;
                case 2 -> WITHDRAWN;
                case 3 -> TIMEOUT;
                default -> throw new IllegalArgumentException("unknown tipc_event type " + wire);
            };
        }
    }

    /** The node the reported socket is on. */
    public int node() {
        return socket.node();
    }
}
