package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcSocketAddress;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A transport that knows every stream it opened and has not seen closed, per host name, so that all of a host's
 * streams, those under a fetch and the idle ones in the pool alike, can be closed at once: its node was lost
 * ({@link NodeLoss}). A fetch reading from a closed stream fails at once.
 */
final class TrackedStreams implements StreamTransport, NodeLoss.Streams {
    private final StreamTransport transport;
    private final Map<ShuffleServiceName, Set<Tracked>> open = new ConcurrentHashMap<>();

    TrackedStreams(StreamTransport transport) {
        this.transport = transport;
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        return track(name, transport.open(name, host, timeouts));
    }

    @Override
    public List<TipcSocketAddress> publications(ShuffleServiceName name) throws IOException {
        return transport.publications(name);
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, TipcSocketAddress publication, String host, Timeouts timeouts)
            throws IOException {
        return track(name, transport.open(name, publication, host, timeouts));
    }

    @Override
    public void closeAll(ShuffleServiceName name) {
        Set<Tracked> streams = open.get(name);
        if (streams != null) {
            for (Tracked t : new ArrayList<>(streams)) {
                ShuffleStream.closeQuietly(t);
            }
        }
    }

    /** Streams open to {@code name} now. */
    int openTo(ShuffleServiceName name) {
        Set<Tracked> streams = open.get(name);
        return streams == null ? 0 : streams.size();
    }

    private ShuffleStream track(ShuffleServiceName name, ShuffleStream stream) {
        Set<Tracked> streams = open.get(name);
        if (streams == null) {
            Set<Tracked> created = ConcurrentHashMap.newKeySet();
            streams = open.putIfAbsent(name, created);
            if (streams == null) {
                streams = created;
            }
        }
        Tracked t = new Tracked(stream, streams);
        streams.add(t);
        return t;
    }

    /** A stream that leaves its host's set when closed. */
    private static final class Tracked implements ShuffleStream {
        private final ShuffleStream stream;
        private final Set<Tracked> set;

        Tracked(ShuffleStream stream, Set<Tracked> set) {
            this.stream = stream;
            this.set = set;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return stream.read(dst);
        }

        @Override
        public void writeFully(ByteBuffer src) throws IOException {
            stream.writeFully(src);
        }

        @Override
        public String server() {
            return stream.server();
        }

        @Override
        public void close() throws IOException {
            set.remove(this);
            stream.close();
        }

        @Override
        public String toString() {
            return stream.toString();
        }
    }
}
