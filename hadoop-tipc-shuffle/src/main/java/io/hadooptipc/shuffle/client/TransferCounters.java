package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapred.Reporter;

/** Feeds the task's "TIPC Shuffle" counters. */
final class TransferCounters implements MapOutputFrames.Sink {
    private final Reporter reporter;

    TransferCounters(Reporter reporter) {
        this.reporter = reporter;
    }

    void fallback(Fallback why) {
        reporter.incrCounter(why.counter, 1);
    }

    void routeToTcp() {
        reporter.incrCounter(TipcShuffleCounter.ROUTES_TO_TCP, 1);
    }

    void routeBackToTipc() {
        reporter.incrCounter(TipcShuffleCounter.ROUTES_BACK_TO_TIPC, 1);
    }

    void routeBackAfterHold() {
        reporter.incrCounter(TipcShuffleCounter.ROUTES_BACK_AFTER_HOLD, 1);
    }

    void peerLost() {
        reporter.incrCounter(TipcShuffleCounter.TIPC_PEERS_LOST, 1);
    }

    void unauthenticatedSkipped() {
        reporter.incrCounter(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED, 1);
    }

    void streamOpened() {
        reporter.incrCounter(TipcShuffleCounter.STREAMS_OPENED, 1);
    }

    void streamOpenedAhead() {
        reporter.incrCounter(TipcShuffleCounter.STREAMS_OPENED_AHEAD, 1);
    }

    void aheadStreamUsed() {
        reporter.incrCounter(TipcShuffleCounter.STREAMS_AHEAD_USED, 1);
    }

    void tlsStream() {
        reporter.incrCounter(TipcShuffleCounter.TLS_STREAMS, 1);
    }

    void streamReused() {
        reporter.incrCounter(TipcShuffleCounter.STREAMS_REUSED, 1);
    }

    void hostLost(long reportMillis) {
        reporter.incrCounter(TipcShuffleCounter.HOSTS_LOST, 1);
        reporter.incrCounter(TipcShuffleCounter.HOSTS_LOST_REPORT_MS, reportMillis);
    }

    void nodeLossReachableOverTcp() {
        reporter.incrCounter(TipcShuffleCounter.NODE_LOSS_TCP_ANSWERED, 1);
    }

    void nodeLossLocalFault() {
        reporter.incrCounter(TipcShuffleCounter.NODE_LOSS_LOCAL_FAULTS, 1);
    }

    void hostBackAfterLoss() {
        reporter.incrCounter(TipcShuffleCounter.HOSTS_BACK_AFTER_NODE_LOSS, 1);
    }

    @Override
    public void mapOutput(boolean viaTipc, long bytes) {
        reporter.incrCounter(viaTipc ? TipcShuffleCounter.TIPC_MAP_OUTPUTS : TipcShuffleCounter.TCP_MAP_OUTPUTS, 1);
        reporter.incrCounter(viaTipc ? TipcShuffleCounter.TIPC_BYTES : TipcShuffleCounter.TCP_BYTES, bytes);
    }
}
