package io.hadooptipc.shuffle.doctor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return Check.skip(NAME, "iproute2's `tipc` tool is not installed (" + e.getMessage()
                    + "): bearers not listed; the links check shows whether one works");
        }
        try {
            p.getOutputStream().close();
            String output = readAll(p.getInputStream());
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

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            bytes.write(buffer, 0, n);
        }
        return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
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
                    "tipc bearer enable media eth device <dev> (on every node, on a shared Ethernet segment)");
        }
        return Check.ok(NAME, String.join(", ", lines));
    }
}
