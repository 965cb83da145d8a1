package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;

import java.net.ConnectException;

/** No server publishes the TIPC name of a shuffle host: it serves HTTP/TCP only, or has not started. */
final class ServiceNotPublishedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    ServiceNotPublishedException(ShuffleServiceName name, Exception cause) {
        super("no server publishes the TIPC shuffle name of " + name);
        initCause(cause);
    }
}
