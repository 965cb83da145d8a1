package io.hadooptipc.tipc;

/**
 * Whether TIPC can be used from this JVM, and if not, exactly why.
 *
 * @param level     how far TIPC reaches from here
 * @param reason    a sentence saying why the level is what it is, and what would raise it
 * @param errno     the errno that decided it, 0 if none did
 * @param peerNodes the other nodes this node has a working TIPC link to
 */
public record TipcAvailability(Level level, String reason, int errno, int peerNodes) {

    public enum Level {
        /** No AF_TIPC sockets: the kernel lacks TIPC, or the native library did not load. */
        UNAVAILABLE,
        /** Sockets work but no other node is reachable (no bearer enabled, or no link up). */
        NODE_LOCAL,
        /** At least one other node is reachable over a TIPC link. */
        CLUSTER
    }

    public boolean isAvailable() {
        return level != Level.UNAVAILABLE;
    }

    public boolean reachesOtherNodes() {
        return level == Level.CLUSTER;
    }
}
