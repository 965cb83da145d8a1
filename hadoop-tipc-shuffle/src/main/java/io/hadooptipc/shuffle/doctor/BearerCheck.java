package io.hadooptipc.shuffle.doctor;

import java.util.List;

/**
 * This node's TIPC bearers, from iproute2's {@code tipc bearer list}: the binding has
 * no netlink, and the links check shows anyway whether a bearer carries anything.
 */
final class BearerCheck {
    static final String NAME = "bearers";
    static final List<String> COMMAND = List.of("tipc", "bearer", "list");

    private BearerCheck() {
    }

    static Check run(List<String> command) {
        CommandRun run = CommandRun.of(command);
        return switch (run.outcome()) {
            case NOT_STARTED -> Check.skip(NAME, "iproute2's `tipc` tool is not installed (" + run.output()
                    + "): bearers not listed; the links check shows whether one works");
            case FAILED -> new Check(NAME, Check.Status.WARN, run.failure(), "");
            case EXITED -> of(run.exit(), run.output(), run.typed());
        };
    }

    /** The verdict on the tool's exit code and output (one bearer per line, e.g. {@code eth:eth0}). */
    static Check of(int exit, String output, String command) {
        List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        if (exit != 0) {
            return new Check(NAME, Check.Status.WARN, "`" + command + "` failed (exit " + exit + "): "
                    + String.join(" ", lines), "");
        }
        if (lines.isEmpty()) {
            return new Check(NAME, Check.Status.FAIL, "no bearer enabled",
                    "tipc bearer enable media eth device <dev> (on every node, on a shared Ethernet segment), or across"
                            + " routers tipc bearer enable media udp name <name> localip <this node's IP> remoteip"
                            + " <another node's IP> (see the README's routed-network set-up)");
        }
        return Check.ok(NAME, String.join(", ", lines));
    }
}
