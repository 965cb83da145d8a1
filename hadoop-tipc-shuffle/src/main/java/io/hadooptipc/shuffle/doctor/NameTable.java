package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcTopologyEvent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The bindings of one service type in the cluster's name table, as this node's topology service sees them. */
final class NameTable {

    /** One socket's binding of the instances {@code lower..upper} (unsigned): the socket {@code port} on {@code node}. */
    static final class Binding {
        private final int lower;
        private final int upper;
        private final int node;
        private final int port;

        Binding(int lower, int upper, int node, int port) {
            this.lower = lower;
            this.upper = upper;
            this.node = node;
            this.port = port;
        }

        boolean covers(int instance) {
            return Integer.compareUnsigned(lower, instance) <= 0 && Integer.compareUnsigned(instance, upper) <= 0;
        }

        int node() {
            return node;
        }

        int port() {
            return port;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Binding)) {
                return false;
            }
            Binding that = (Binding) o;
            return lower == that.lower && upper == that.upper && node == that.node && port == that.port;
        }

        @Override
        public int hashCode() {
            return Objects.hash(lower, upper, node, port);
        }

        @Override
        public String toString() {
            return "Binding[" + Integer.toUnsignedString(lower) + ".." + Integer.toUnsignedString(upper) + " by "
                    + Integer.toHexString(node) + ":" + Integer.toUnsignedString(port) + "]";
        }
    }

    private NameTable() {
    }

    static List<Binding> bindings(int serviceType) throws IOException {
        List<Binding> bindings = new ArrayList<>();
        for (TipcTopologyEvent e : Tipc.bindings(TipcServiceRange.all(serviceType))) {
            // A range as it was bound: one socket may bind every instance of the type.
            bindings.add(new Binding(e.lower(), e.upper(), e.node(), e.socket().ref()));
        }
        return bindings;
    }
}
