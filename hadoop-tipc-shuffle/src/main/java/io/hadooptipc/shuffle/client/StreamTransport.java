package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;

import io.hadooptipc.tipc.TipcSocketAddress;

import java.io.IOException;
import java.util.Collections;
import java.util.List;

/** Opens byte streams to shuffle servers by their TIPC service name: over AF_TIPC in tasks, a socket pair in tests. */
interface StreamTransport {

    /**
     * Connects to the server that publishes {@code name}, within the connect timeout; {@code host}
     * is the map host as the fetch's URL names it, which TLS checks the server's certificate against.
     *
     * @throws ServiceNotPublishedException when no server publishes the name
     * @throws IOException                  when the connection failed otherwise
     */
    ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException;

    /**
     * The listening sockets that publish {@code name} now, as the topology service lists them: any
     * process may bind a name, so a fetch refused by the one a connection by name reached tries these.
     * None for a transport that reaches a server by its name alone.
     */
    default List<TipcSocketAddress> publications(ShuffleServiceName name) throws IOException {
        return Collections.emptyList();
    }

    /** Connects to {@code publication}, one of {@link #publications}, rather than to whoever the name leads to. */
    default ShuffleStream open(ShuffleServiceName name, TipcSocketAddress publication, String host, Timeouts timeouts)
            throws IOException {
        throw new IOException(name + " is reached by its name alone, not at " + publication);
    }
}
