package io.hadooptipc.shuffle.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return Check.skip(NAME, "iproute2's `tipc` tool is not installed (" + e.getMessage()
                    + "): bearers not listed; the links check shows whether one works");
        }
        try {
            p.getOutputStream().close();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Check(NAME, Check.Status.WARN, "`" + String.join(" ", command) + "` did not finish", "");
            }
            return of(p.exitValue(), output, String.join(" ", command));
        } catch (IOException | InterruptedException e) {
            p.destroyForcibly();
            return new Check(NAME, Check.Status.WARN, "`" + String.join(" ", command) + "` failed: " + e, "");
        }
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
                    "tipc bearer enable media eth device <dev> (on every node, on a shared Ethernet segment)");
        }
        return Check.ok(NAME, String.join(", ", lines));
    }
}
