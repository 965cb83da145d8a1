package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.conf.Configuration;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * How soon TIPC knows that a peer node is gone: a link is declared down when nothing came over it for its
 * tolerance, read per link with {@code tipc link get tolerance}. With node loss on, a reduce task acts on that
 * report after its hold-down and TCP probe, so their sum is how long a dead map host can stall a fetch.
 */
final class LinkToleranceCheck {
    static final String NAME = "link-tolerance";
    static final List<String> LIST = Arrays.asList("tipc", "link", "list");
    /** The link every node has for broadcast, which no peer's loss takes down. */
    private static final String BROADCAST_LINK = "broadcast-link";

    private LinkToleranceCheck() {
    }

    /** {@code tipc link get tolerance link NAME}. */
    static List<String> getCommand(String link) {
        return Arrays.asList("tipc", "link", "get", "tolerance", "link", link);
    }

    /** @param tipc runs a {@code tipc} command ({@link CommandRun#of} on a node) */
    static Check of(Configuration conf, Function<List<String>, CommandRun> tipc) {
        CommandRun list = tipc.apply(LIST);
        if (list.outcome() == CommandRun.Outcome.NOT_STARTED) {
            return Check.skip(NAME, "iproute2's `tipc` tool is not installed (" + list.output() + ")");
        }
        if (!list.succeeded()) {
            return new Check(NAME, Check.Status.WARN, list.failure(), "");
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        int links = 0;
        for (String line : SystemRoot.linesOf(list.output())) {
            int colon = line.lastIndexOf(": ");
            String name = colon < 0 ? "" : line.substring(0, colon).trim();
            if (name.isEmpty() || name.equals(BROADCAST_LINK)) {
                continue;
            }
            CommandRun get = tipc.apply(getCommand(name));
            if (!get.succeeded()) {
                return new Check(NAME, Check.Status.WARN, get.failure(), "");
            }
            long ms;
            try {
                ms = Long.parseLong(get.output().trim());
            } catch (NumberFormatException e) {
                return new Check(NAME, Check.Status.WARN, "`" + get.typed() + "` printed no tolerance: "
                        + get.output().trim(), "");
            }
            min = Math.min(min, ms);
            max = Math.max(max, ms);
            links++;
        }
        if (links == 0) {
            return Check.skip(NAME, "no link to another node (see links)");
        }
        String tolerance = min == max ? min + " ms" : min + "-" + max + " ms";
        StringBuilder finding = new StringBuilder(tolerance + " on " + links + " link(s): TIPC reports a node lost"
                + " about " + tolerance + " after its last frame");
        if (conf.getBoolean(TipcShuffleConfig.NODE_LOSS_ENABLED, TipcShuffleConfig.DEFAULT_NODE_LOSS_ENABLED)) {
            long holdDown = conf.getLong(TipcShuffleConfig.NODE_LOSS_HOLD_DOWN_MS,
                    TipcShuffleConfig.DEFAULT_NODE_LOSS_HOLD_DOWN_MS);
            int probe = conf.getInt(TipcShuffleConfig.NODE_LOSS_PROBE_TIMEOUT_MS,
                    TipcShuffleConfig.DEFAULT_NODE_LOSS_PROBE_TIMEOUT_MS);
            finding.append("; a reduce task reports a dead map host's outputs within about ")
                    .append(max + holdDown + probe).append(" ms (tolerance, ")
                    .append(TipcShuffleConfig.NODE_LOSS_HOLD_DOWN_MS).append(" ").append(holdDown).append(", ")
                    .append(TipcShuffleConfig.NODE_LOSS_PROBE_TIMEOUT_MS).append(" ").append(probe).append(")");
        } else {
            finding.append("; ").append(TipcShuffleConfig.NODE_LOSS_ENABLED)
                    .append(" is off: reduce tasks wait for the stock timeouts instead");
        }
        return Check.ok(NAME, finding.toString());
    }
}
