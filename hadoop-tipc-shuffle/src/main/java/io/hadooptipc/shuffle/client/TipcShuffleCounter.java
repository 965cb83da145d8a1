package io.hadooptipc.shuffle.client;

/**
 * Job counters of the TIPC shuffle, group "TIPC Shuffle" (display names in
 * TipcShuffleCounter.properties). Bytes are map-output bytes, as in the stock
 * REDUCE_SHUFFLE_BYTES, counted for the transport that delivered a map output's
 * last byte. Each FALLBACK_* counts fetch requests that went over HTTP/TCP for
 * that reason, TCP_BY_CONFIGURATION, TCP_FOR_LARGE_OUTPUTS, TCP_OTHER_ISLAND and TCP_FIRST_FETCHES (sent before any
 * map output had shown its size) those sent there by choice;
 * ROUTES_TO_TCP counts map hosts switched to HTTP/TCP (after a failure or a withdrawn name),
 * ROUTES_BACK_TO_TIPC those switched back when their name was published again, ROUTES_BACK_AFTER_HOLD those
 * switched back once the hold after a fallback before a proven response was over, TIPC_PEERS_LOST
 * the nodes to which every TIPC link went down; STREAMS_OPENED counts TIPC streams connected,
 * STREAMS_REUSED requests sent on a kept-alive one, STREAMS_OPENED_AHEAD those connected when their host's
 * first map output became known, ahead of its first fetch, STREAMS_AHEAD_USED those a first fetch took, TLS_STREAMS the TIPC streams whose TLS
 * handshake completed (encrypted shuffle required, TIPC links not declared encrypted),
 * UNAUTHENTICATED_SKIPPED the TIPC servers a fetch left, for another socket that publishes the
 * name, because they did not prove they hold the job token in time (any answer, or none, without the proof).
 * HOSTS_LOST counts map hosts reported lost with their TIPC node (their map outputs reported to the
 * ApplicationMaster), HOSTS_LOST_REPORT_MS the milliseconds from TIPC's report of each such node's loss to the
 * host's first reports (summed over the hosts), NODE_LOSS_TCP_ANSWERED the hosts whose node TIPC lost but whose
 * shuffle port answered a TCP connect (fetched from over HTTP/TCP), NODE_LOSS_LOCAL_FAULTS the hosts not reported
 * because the loss looked like this node's own fault, HOSTS_BACK_AFTER_NODE_LOSS the hosts fetched from again
 * when their node was linked again and their name published.
 */
public enum TipcShuffleCounter {
    TIPC_BYTES,
    TCP_BYTES,
    TIPC_MAP_OUTPUTS,
    TCP_MAP_OUTPUTS,
    FALLBACK_TIPC_UNAVAILABLE,
    FALLBACK_NOT_PUBLISHED,
    FALLBACK_WITHDRAWN,
    FALLBACK_CONNECT_FAILED,
    FALLBACK_MISDIRECTED,
    FALLBACK_UNAUTHENTICATED,
    FALLBACK_TLS_FAILED,
    FALLBACK_PROOF_TIMEOUT,
    FALLBACK_MID_TRANSFER,
    TCP_BY_CONFIGURATION,
    TCP_FOR_LARGE_OUTPUTS,
    TCP_OTHER_ISLAND,
    TCP_FIRST_FETCHES,
    ROUTES_TO_TCP,
    ROUTES_BACK_TO_TIPC,
    ROUTES_BACK_AFTER_HOLD,
    TIPC_PEERS_LOST,
    STREAMS_OPENED,
    STREAMS_REUSED,
    STREAMS_OPENED_AHEAD,
    STREAMS_AHEAD_USED,
    TLS_STREAMS,
    UNAUTHENTICATED_SKIPPED,
    HOSTS_LOST,
    HOSTS_LOST_REPORT_MS,
    NODE_LOSS_TCP_ANSWERED,
    NODE_LOSS_LOCAL_FAULTS,
    HOSTS_BACK_AFTER_NODE_LOSS;

    /** Whether this counts fetch requests that went over HTTP/TCP for a reason (a FALLBACK_* counter). */
    public boolean isFallback() {
        return name().startsWith("FALLBACK_");
    }
}
