package io.hadooptipc.tipc;

import java.util.Objects;

/**
 * Whether TIPC can be used from this JVM, and if not, exactly why.
 *
 * @param level     how far TIPC reaches from here
 * @param reason    a sentence saying why the level is what it is, and what would raise it
 * @param errno     the errno that decided it, 0 if none did
 * @param peerNodes the other nodes this node has a working TIPC link to
 */
public final class TipcAvailability {
    private final Level level;
    private final String reason;
    private final int errno;
    private final int peerNodes;

    public TipcAvailability(Level level, String reason, int errno, int peerNodes) {
        this.level = level;
        this.reason = reason;
        this.errno = errno;
        this.peerNodes = peerNodes;
    }

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

    public Level level() {
        return level;
    }

    public String reason() {
        return reason;
    }

    public int errno() {
        return errno;
    }

    public int peerNodes() {
        return peerNodes;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TipcAvailability)) {
            return false;
        }
        TipcAvailability a = (TipcAvailability) o;
        return level == a.level && Objects.equals(reason, a.reason) && errno == a.errno && peerNodes == a.peerNodes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(level, reason, errno, peerNodes);
    }

    @Override
    public String toString() {
        return "TipcAvailability[level=" + level + ", reason=" + reason + ", errno=" + errno
                + ", peerNodes=" + peerNodes + "]";
    }
}
