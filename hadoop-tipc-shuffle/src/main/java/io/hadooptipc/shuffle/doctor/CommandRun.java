package io.hadooptipc.shuffle.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of a command the doctor reads TIPC state from (iproute2's {@code tipc}): how it ended and
 * what it printed, stdout and stderr together. The binding has no netlink, so the tool is the source.
 */
record CommandRun(List<String> command, Outcome outcome, int exit, String output) {
    enum Outcome {
        /** It ran and exited with {@link #exit()}. */
        EXITED,
        /** It could not be started (the tool is not installed); {@link #output()} says why. */
        NOT_STARTED,
        /** It ran for longer than {@link #TIMEOUT_SECONDS} or its output could not be read; {@link #output()} says which. */
        FAILED
    }

    static final int TIMEOUT_SECONDS = 10;

    static CommandRun of(List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new CommandRun(command, Outcome.NOT_STARTED, -1, e.getMessage());
        }
        try {
            p.getOutputStream().close();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
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
        return "`" + typed() + "` " + switch (outcome) {
            case EXITED -> "failed (exit " + exit + "): " + String.join(" ", output.strip().lines().toList());
            case NOT_STARTED -> "could not start: " + output;
            case FAILED -> output;
        };
    }
}
