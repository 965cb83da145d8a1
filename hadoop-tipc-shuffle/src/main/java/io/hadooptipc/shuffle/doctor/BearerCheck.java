package io.hadooptipc.shuffle.doctor;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * This node's TIPC bearers, from iproute2's {@code tipc bearer list}: the binding has
 * no netlink, and the links check shows anyway whether a bearer carries anything.
 */
final class BearerCheck {
    static final String NAME = "bearers";
    static final List<String> COMMAND = Arrays.asList("tipc", "bearer", "list");

    private BearerCheck() {
    }

    static Check run(List<String> command) {
        CommandRun run = CommandRun.of(command);
        if (run.outcome() == CommandRun.Outcome.NOT_STARTED) {
            return Check.skip(NAME, "iproute2's `tipc` tool is not installed (" + run.output()
                    + "): bearers not listed; the links check shows whether one works");
        }
        if (run.outcome() == CommandRun.Outcome.FAILED) {
            return new Check(NAME, Check.Status.WARN, run.failure(), "");
        }
        return of(run.exit(), run.output(), run.typed());
    }

    /** The verdict on the tool's exit code and output (one bearer per line, e.g. {@code eth:eth0}). */
    static Check of(int exit, String output, String command) {
        List<String> lines = SystemRoot.linesOf(output).stream().map(String::trim).filter(l -> !l.isEmpty()).collect(Collectors.toList());
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
