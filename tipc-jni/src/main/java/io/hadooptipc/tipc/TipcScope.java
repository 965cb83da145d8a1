package io.hadooptipc.tipc;

/** How far a bound service name is visible. */
public enum TipcScope {
    /** Every node of the cluster can look the name up. */
    CLUSTER(2),
    /** Only sockets on this node can. */
    NODE(3);

    final int value;

    TipcScope(int value) {
        this.value = value;
    }
}
