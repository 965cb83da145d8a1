package io.hadooptipc.shuffle.client;

/** Why a fetch request went over HTTP/TCP, with the counter that records it. */
enum Fallback {
    TIPC_UNAVAILABLE(TipcShuffleCounter.FALLBACK_TIPC_UNAVAILABLE, "TIPC is not available on this node"),
    NOT_PUBLISHED(TipcShuffleCounter.FALLBACK_NOT_PUBLISHED, "the host does not publish the TIPC shuffle service"),
    WITHDRAWN(TipcShuffleCounter.FALLBACK_WITHDRAWN, "the host's TIPC shuffle name was withdrawn"),
    CONNECT_FAILED(TipcShuffleCounter.FALLBACK_CONNECT_FAILED, "the TIPC connection failed before a response"),
    MISDIRECTED(TipcShuffleCounter.FALLBACK_MISDIRECTED, "the TIPC name led to another server"),
    UNAUTHENTICATED(TipcShuffleCounter.FALLBACK_UNAUTHENTICATED,
            "the socket at the TIPC name did not prove it holds the job token"),
    TLS_FAILED(TipcShuffleCounter.FALLBACK_TLS_FAILED, "TLS over TIPC failed (handshake or certificate)"),
    MID_TRANSFER(TipcShuffleCounter.FALLBACK_MID_TRANSFER, "the TIPC connection failed mid-transfer"),
    CONFIGURED(TipcShuffleCounter.TCP_BY_CONFIGURATION, "mapreduce.shuffle.tipc.transport is tcp"),
    LARGE_OUTPUTS(TipcShuffleCounter.TCP_FOR_LARGE_OUTPUTS,
            "a map output was larger than mapreduce.shuffle.tipc.tcp.above-bytes"),
    OTHER_ISLAND(TipcShuffleCounter.TCP_OTHER_ISLAND,
            "the host is in another TIPC island (mapreduce.shuffle.tipc.island.level)");

    final TipcShuffleCounter counter;
    final String reason;

    Fallback(TipcShuffleCounter counter, String reason) {
        this.counter = counter;
        this.reason = reason;
    }
}
