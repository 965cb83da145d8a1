package io.hadooptipc.tipc;

/** The descriptor number behind a channel, for tests that hand a TIPC socket to another library. */
public final class Descriptors {
    /** {@code channel}'s descriptor; whoever takes it must keep the channel reachable, or its cleaner closes it. */
    public static int number(TipcChannel channel) {
        return channel.fd;
    }

    private Descriptors() {
    }
}
