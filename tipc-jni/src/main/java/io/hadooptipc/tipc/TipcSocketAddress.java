package io.hadooptipc.tipc;

/** One socket: its port reference on the node with the given 32-bit node address. */
public final class TipcSocketAddress extends TipcAddress {
    private static final long serialVersionUID = 1L;

    private final int ref;
    private final int node;

    private TipcSocketAddress(int ref, int node) {
        this.ref = ref;
        this.node = node;
    }

    public static TipcSocketAddress of(int ref, int node) {
        return new TipcSocketAddress(ref, node);
    }

    public int ref() {
        return ref;
    }

    public int node() {
        return node;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TipcSocketAddress)) {
            return false;
        }
        TipcSocketAddress a = (TipcSocketAddress) o;
        return a.ref == ref && a.node == node;
    }

    @Override
    public int hashCode() {
        return ref * 31 + node;
    }

    @Override
    public String toString() {
        return "tipc:<" + Integer.toHexString(node) + ":" + Integer.toUnsignedString(ref) + ">";
    }
}
