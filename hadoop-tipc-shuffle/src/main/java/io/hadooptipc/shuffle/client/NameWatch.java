package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;

import java.io.Closeable;
import java.io.IOException;

/**
 * What TIPC's topology service says about the map hosts' shuffle names, as it happens:
 * {@link TipcNameWatch} in a reduce task, a hand-driven one in host tests.
 */
interface NameWatch extends Closeable {

    /** Receives the reports, on the watch's own thread. */
    interface Listener {
        /** The name is bound somewhere in the cluster (reported at once for a name already bound). */
        void published(ShuffleServiceName name);

        /** The last socket bound to the name withdrew it, or its node was lost. */
        void withdrawn(ShuffleServiceName name);

        /** Every link to a node is down (the node left the cluster as TIPC sees it). */
        void nodeLost(int node);

        /** A link to a node is up (reported at once for every node linked when the watch starts). */
        default void nodeUp(int node) {
        }
    }

    /** Reports the name's publications and withdrawals from now on; watching a name twice is harmless. */
    void watch(ShuffleServiceName name) throws IOException;
}
