package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;

import java.io.IOException;

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
}
