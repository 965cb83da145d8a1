package io.hadooptipc.shuffle.doctor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of a command the doctor reads TIPC state from (iproute2's {@code tipc}): how it ended and
 * what it printed, stdout and stderr together. The binding has no netlink, so the tool is the source.
 */
final class CommandRun {
    enum Outcome {
        /** It ran and exited with {@link #exit()}. */
        EXITED,
        /** It could not be started (the tool is not installed); {@link #output()} says why. */
        NOT_STARTED,
        /** It ran for longer than {@link #TIMEOUT_SECONDS} or its output could not be read; {@link #output()} says which. */
        FAILED
    }

    static final int TIMEOUT_SECONDS = 10;

    private final List<String> command;
    private final Outcome outcome;
    private final int exit;
    private final String output;

    CommandRun(List<String> command, Outcome outcome, int exit, String output) {
        this.command = command;
        this.outcome = outcome;
        this.exit = exit;
        this.output = output;
    }

    static CommandRun of(List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new CommandRun(command, Outcome.NOT_STARTED, -1, e.getMessage());
        }
        try {
            p.getOutputStream().close();
            String output = readAll(p.getInputStream());
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new CommandRun(command, Outcome.FAILED, -1, "did not finish");
            }
            return new CommandRun(command, Outcome.EXITED, p.exitValue(), output);
        } catch (IOException | InterruptedException e) {
            p.destroyForcibly();
            return new CommandRun(command, Outcome.FAILED, -1, "failed: " + e);
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

    Outcome outcome() {
        return outcome;
    }

    int exit() {
        return exit;
    }

    String output() {
        return output;
    }

    /** Whether it ran and exited 0. */
    boolean succeeded() {
        return outcome == Outcome.EXITED && exit == 0;
    }

    /** The command as typed, e.g. {@code tipc bearer list}. */
    String typed() {
        return String.join(" ", command);
    }

    /** Why it did not succeed, e.g. {@code `tipc bearer list` failed (exit 1): error}. */
    String failure() {
        String why;
        if (outcome == Outcome.EXITED) {
            why = "failed (exit " + exit + "): " + String.join(" ", SystemRoot.linesOf(output.trim()));
        } else if (outcome == Outcome.NOT_STARTED) {
            why = "could not start: " + output;
        } else {
            why = output;
        }
        return "`" + typed() + "` " + why;
    }
}
