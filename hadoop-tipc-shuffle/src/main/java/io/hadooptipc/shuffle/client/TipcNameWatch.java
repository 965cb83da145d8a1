package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link NameWatch} on a connection to this node's topology service, read by a daemon
 * thread: one subscription per watched shuffle name (first publication and last
 * withdrawal), and one to the node-state names, whose withdrawal means all links to
 * that node went down.
 */
final class TipcNameWatch implements NameWatch {
    private static final Logger LOG = LoggerFactory.getLogger(TipcNameWatch.class);

    private final int serviceType;
    private final Listener listener;
    private final TipcTopologyChannel topology;
    private final Map<Integer, Set<ShuffleServiceName>> byInstance = new ConcurrentHashMap<>();
    private final Thread reader;
    private volatile boolean closed;

    private TipcNameWatch(int serviceType, Listener listener, TipcTopologyChannel topology) {
        this.serviceType = serviceType;
        this.listener = listener;
        this.topology = topology;
        this.reader = new Reader();
    }

    /** Watches over {@code topology} (closed with the watch, or here if the watch cannot start). */
    static TipcNameWatch start(int serviceType, Listener listener, TipcTopologyChannel topology) throws IOException {
        try {
            topology.subscribe(TipcServiceRange.all(Tipc.NODE_STATE_SERVICE), TipcTopologyChannel.Mode.EVERY_BINDING);
        } catch (IOException | RuntimeException e) {
            topology.close();
            throw e;
        }
        TipcNameWatch watch = new TipcNameWatch(serviceType, listener, topology);
        watch.reader.start();
        return watch;
    }

    /** The daemon thread that reads the reports. */
    private final class Reader extends Thread {
        Reader() {
            super("TIPC shuffle topology");
            setDaemon(true);
        }

        @Override
        public void run() {
            read();
        }
    }

    @Override
    public synchronized void watch(ShuffleServiceName name) throws IOException {
        Set<ShuffleServiceName> names = byInstance.get(name.instance());
        if (names == null) {
            names = ConcurrentHashMap.newKeySet();
            byInstance.put(name.instance(), names);
        }
        if (names.add(name)) {
            topology.subscribe(TipcServiceRange.of(name.tipcAddress(serviceType)), TipcTopologyChannel.Mode.FIRST_AND_LAST);
        }
    }

    private void read() {
        try {
            while (!closed) {
                dispatch(topology.receive());
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.warn("TIPC topology reports stopped ({}): hosts that fell back to HTTP/TCP stay there", e.toString());
            }
        }
    }

    private void dispatch(TipcTopologyEvent event) {
        if (event.subscription() == null || event.kind() == TipcTopologyEvent.Kind.TIMEOUT) {
            return;
        }
        boolean published = event.kind() == TipcTopologyEvent.Kind.PUBLISHED;
        if (event.subscription().range().type() == Tipc.NODE_STATE_SERVICE) {
            if (!published) {
                listener.nodeLost(event.lower());
            } else {
                listener.nodeUp(event.lower());
            }
            return;
        }
        for (ShuffleServiceName name : byInstance.getOrDefault(event.lower(), Collections.emptySet())) {
            if (published) {
                listener.published(name);
            } else {
                listener.withdrawn(name);
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        topology.close();
    }
}
