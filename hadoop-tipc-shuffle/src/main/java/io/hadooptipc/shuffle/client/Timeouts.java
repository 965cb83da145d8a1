package io.hadooptipc.shuffle.client;

import java.net.URLConnection;

/**
 * How long a shuffle stream waits, each bound explicit as in OkHttp: to connect, for
 * the server's next bytes, and for the server to take more of ours. Milliseconds; 0
 * waits forever, as for {@link URLConnection}.
 */
record Timeouts(int connectMillis, int readMillis, int writeMillis) {

    Timeouts {
        if (connectMillis < 0 || readMillis < 0 || writeMillis < 0) {
            throw new IllegalArgumentException("negative timeout: " + connectMillis + "/" + readMillis + "/" + writeMillis);
        }
    }

    /**
     * The stock fetcher's timeouts on {@code c}. It sets no write timeout, since over HTTP a request
     * never waits for the server; over TIPC a server that takes no bytes of the request is bounded
     * as one that sends none of the response: by the read timeout.
     */
    static Timeouts of(URLConnection c) {
        return new Timeouts(c.getConnectTimeout(), c.getReadTimeout(), c.getReadTimeout());
    }
}
