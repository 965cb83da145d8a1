package io.hadooptipc.shuffle.client;

/**
 * Whether a response over TIPC came from a server other than the one the fetcher
 * meant (a hash collision or a stale name): a 421, or a response naming another
 * server. Only that moves the exchange to HTTP/TCP; any other response, errors
 * included, is the stock fetcher's to handle by its status code, as over HTTP (429:
 * back off for Retry-After; any other non-200: a failed fetch under the stock
 * retry rules). A response that names no server is judged by its status alone:
 * only a server holding the job's token can answer 200 with a valid ReplyHash.
 */
final class Misdirection {
    private Misdirection() {
    }

    /** @param server the response's {@code X-TIPC-Shuffle-Server}, null when absent */
    static boolean of(String asked, int status, String server) {
        return status == 421 || server != null && !server.equals(asked);
    }
}
