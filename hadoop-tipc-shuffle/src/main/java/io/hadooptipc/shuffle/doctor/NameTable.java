package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The bindings of one service type in the cluster's name table, as this node's topology service sees them. */
final class NameTable {

    /** One socket's binding of {@code instance}, on node {@code node}. */
    static final class Binding {
        private final int instance;
        private final int node;

        Binding(int instance, int node) {
            this.instance = instance;
            this.node = node;
        }

        public int instance() {
            return instance;
        }

        public int node() {
            return node;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Binding)) {
                return false;
            }
            Binding that = (Binding) o;
            return instance == that.instance && node == that.node;
        }

        @Override
        public int hashCode() {
            return Objects.hash(instance, node);
        }

        @Override
        public String toString() {
            return "Binding[instance=" + instance + ", node=" + node + "]";
        }
    }

    private NameTable() {
    }

    static List<Binding> bindings(int serviceType) throws IOException {
        List<Binding> bindings = new ArrayList<>();
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            // The service reports every existing binding of the range at once, then the TIMEOUT.
            topology.subscribe(TipcServiceRange.all(serviceType), TipcTopologyChannel.Mode.EVERY_BINDING,
                    Duration.ofMillis(100));
            for (TipcTopologyEvent e = next(topology); e.kind() != TipcTopologyEvent.Kind.TIMEOUT; e = next(topology)) {
                if (e.kind() == TipcTopologyEvent.Kind.PUBLISHED) {
                    for (long i = Integer.toUnsignedLong(e.lower()); i <= Integer.toUnsignedLong(e.upper()); i++) {
                        bindings.add(new Binding((int) i, e.node()));
                    }
                }
            }
        }
        return bindings;
    }

    private static TipcTopologyEvent next(TipcTopologyChannel topology) throws IOException {
        TipcTopologyEvent e = topology.receive(Duration.ofSeconds(5));
        if (e == null) {
            throw new IOException("the topology service sent no TIMEOUT event within 5 s");
        }
        return e;
    }
}
