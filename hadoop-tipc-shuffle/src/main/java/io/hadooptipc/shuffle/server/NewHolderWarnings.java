package io.hadooptipc.shuffle.server;

import java.time.Duration;

/**
 * When a new holder of this NodeManager's shuffle names gets a WARN line of its own: the first at once,
 * then at most one line per {@link #INTERVAL}, a summary that counts the new holders since the last line.
 * A process that binds and unbinds a name in a loop would otherwise fill the NodeManager's log; the
 * {@value TipcShuffleMetrics#NAME_OTHER_HOLDERS_SEEN} counter counts each. Times are {@link System#nanoTime}'s.
 */
final class NewHolderWarnings {
    /** A loop of binds writes at most 60 lines an hour, and its operator still hears of it within a minute. */
    static final Duration INTERVAL = Duration.ofMinutes(1);

    private final long intervalNanos;
    private boolean lineWritten;
    private long lastLine;
    private int notWarned;

    NewHolderWarnings(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /** A new holder seen at {@code now}: true when it gets a line of its own, false when the next summary counts it. */
    boolean warnOf(long now) {
        if (notWarned == 0 && (!lineWritten || now - lastLine >= intervalNanos)) {
            lineWritten = true;
            lastLine = now;
            return true;
        }
        notWarned++;
        return false;
    }

    /** How long from {@code now} until a summary is due; null while no holder waits for one. */
    Duration untilSummary(long now) {
        return notWarned == 0 ? null : Duration.ofNanos(Math.max(0, lastLine + intervalNanos - now));
    }

    /** The new holders a summary written at {@code now} counts, now forgotten; 0 when no summary is due. */
    int summarize(long now) {
        if (notWarned == 0 || now - lastLine < intervalNanos) {
            return 0;
        }
        int holders = notWarned;
        notWarned = 0;
        lastLine = now;
        return holders;
    }
}
