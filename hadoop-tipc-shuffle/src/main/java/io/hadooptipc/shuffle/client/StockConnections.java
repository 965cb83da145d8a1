package io.hadooptipc.shuffle.client;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * Opens the stock fetcher's own connection to a map host: HTTP/TCP, or HTTPS with the job's
 * SSL settings when encrypted shuffle is on. What a fetch over TIPC falls back to.
 */
@FunctionalInterface
public interface StockConnections {
    HttpURLConnection open(URL url) throws IOException;
}
