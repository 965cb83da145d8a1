package io.hadooptipc.shuffle.client;

/**
 * Why a fetch request went over HTTP/TCP, with the counter that records it. Those that are {@link #unproven}
 * came before any socket at the TIPC name proved it holds the job token: any process may cause them by binding
 * the name, so the host goes back to TIPC after a hold rather than waiting for its name to be published again.
 */
enum Fallback {
    TIPC_UNAVAILABLE(TipcShuffleCounter.FALLBACK_TIPC_UNAVAILABLE, "TIPC is not available on this node"),
    NOT_PUBLISHED(TipcShuffleCounter.FALLBACK_NOT_PUBLISHED, "the host does not publish the TIPC shuffle service"),
    WITHDRAWN(TipcShuffleCounter.FALLBACK_WITHDRAWN, "the host's TIPC shuffle name was withdrawn"),
    CONNECT_FAILED(TipcShuffleCounter.FALLBACK_CONNECT_FAILED, "the TIPC connection failed before a response", true),
    MISDIRECTED(TipcShuffleCounter.FALLBACK_MISDIRECTED, "the TIPC name led to another server", true),
    UNAUTHENTICATED(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED,
            "the socket at the TIPC name did not prove it holds the job token", true),
    TLS_FAILED(TipcShuffleCounter.FALLBACK_TLS_FAILED, "TLS over TIPC failed (handshake or certificate)", true),
    PROOF_TIMEOUT(TipcShuffleCounter.FALLBACK_PROOF_TIMEOUT, "no socket at the TIPC name proved it holds the job"
            + " token within mapreduce.shuffle.tipc.proof.timeout.ms", true),
    MID_TRANSFER(TipcShuffleCounter.FALLBACK_MID_TRANSFER, "the TIPC connection failed mid-transfer"),
    CONFIGURED(TipcShuffleCounter.TCP_BY_CONFIGURATION, "mapreduce.shuffle.tipc.transport is tcp"),
    LARGE_OUTPUTS(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS,
            "a map output was larger than mapreduce.shuffle.tipc.tcp.above-bytes"),
    SIZE_UNKNOWN(TipcShuffleCounter.TCP_FIRST_FETCHES,
            "no map output of the task has shown its size yet (mapreduce.shuffle.tipc.first-fetches = tcp)"),
    OTHER_ISLAND(TipcShuffleCounter.TCP_OTHER_ISLAND,
            "the host is in another TIPC island (mapreduce.shuffle.tipc.island.level)");

    final TipcShuffleCounter counter;
    final String reason;
    /** Before a proven response head: held for a while, not until the name is published again. */
    final boolean unproven;

    Fallback(TipcShuffleCounter counter, String reason) {
        this(counter, reason, false);
    }

    Fallback(TipcShuffleCounter counter, String reason, boolean unproven) {
        this.counter = counter;
        this.reason = reason;
        this.unproven = unproven;
    }
}
