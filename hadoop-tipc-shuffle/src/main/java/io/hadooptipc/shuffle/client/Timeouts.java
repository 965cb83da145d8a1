package io.hadooptipc.shuffle.client;

import java.net.URLConnection;

/**
 * How long a shuffle stream waits, each bound explicit as in OkHttp: to connect, for
 * the server's next bytes, and for the server to take more of ours. Milliseconds; 0
 * waits forever, as for {@link URLConnection}.
 */
final class Timeouts {
    private final int connectMillis;
    private final int readMillis;
    private final int writeMillis;

    Timeouts(int connectMillis, int readMillis, int writeMillis) {
        if (connectMillis < 0 || readMillis < 0 || writeMillis < 0) {
            throw new IllegalArgumentException("negative timeout: " + connectMillis + "/" + readMillis + "/" + writeMillis);
        }
        this.connectMillis = connectMillis;
        this.readMillis = readMillis;
        this.writeMillis = writeMillis;
    }

    // Written out, as the record would generate them, for the reason ShuffleServiceName's are: StreamPool
    // compares timeouts on every reuse.
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Timeouts)) {
            return false;
        }
        Timeouts t = (Timeouts) o;
        return connectMillis == t.connectMillis && readMillis == t.readMillis
                && writeMillis == t.writeMillis;
    }

    @Override
    public int hashCode() {
        return (31 * connectMillis + readMillis) * 31 + writeMillis;
    }

    @Override
    public String toString() {
        return "Timeouts[connectMillis=" + connectMillis + ", readMillis=" + readMillis + ", writeMillis=" + writeMillis
                + "]";
    }

    /**
     * The stock fetcher's timeouts on {@code c}. It sets no write timeout, since over HTTP a request
     * never waits for the server; over TIPC a server that takes no bytes of the request is bounded
     * as one that sends none of the response: by the read timeout.
     */
    static Timeouts of(URLConnection c) {
        return new Timeouts(c.getConnectTimeout(), c.getReadTimeout(), c.getReadTimeout());
    }

    public int connectMillis() {
        return connectMillis;
    }

    public int readMillis() {
        return readMillis;
    }

    public int writeMillis() {
        return writeMillis;
    }
}
