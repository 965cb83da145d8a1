package io.hadooptipc.shuffle.server;

/** A request the server refuses, with the HTTP status it answers (as the stock handler would). */
public final class ShuffleException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    public ShuffleException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
