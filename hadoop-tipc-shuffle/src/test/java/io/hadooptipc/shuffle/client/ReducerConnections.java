package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.ShuffleWire;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import javax.crypto.SecretKey;

/** A reducer's TIPC streams and signed connections to a shuffle server, built from their parts, for tests. */
final class ReducerConnections {
    private ReducerConnections() {
    }

    /** A reduce task's TIPC streams, one kept alive per host or none. */
    static StreamPool streams(TransferCounters counters, boolean reuse) {
        return new StreamPool(new TipcStreamTransport(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), counters, reuse ? 1 : 0,
                TipcShuffleConfig.DEFAULT_REUSE_IDLE_TIMEOUT_MS);
    }

    /** A connection for {@code uri} on the server, with the headers the stock fetcher sets and a 60 s read timeout. */
    static TipcShuffleConnection connection(String serverIp, int port, String uri, SecretKey key, TransportRoutes routes,
                                            StreamPool streams, TransferCounters counters) throws IOException {
        TipcShuffleConnection c = new TipcShuffleConnection(new URL("http", serverIp, port, uri), routes, streams, counters,
                u -> (HttpURLConnection) u.openConnection(), key);
        ShuffleWire.sign(c, uri, port, key);
        return c;
    }
}
