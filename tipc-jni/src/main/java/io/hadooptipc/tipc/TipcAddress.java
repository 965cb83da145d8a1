package io.hadooptipc.tipc;

import java.net.SocketAddress;

/**
 * A TIPC address. TIPC addresses services by name rather than by host: a
 * {@link TipcServiceAddress} names one service instance, a {@link TipcServiceRange}
 * a range of instances (for binding and subscriptions), and a
 * {@link TipcSocketAddress} one particular socket on one particular node.
 */
public abstract class TipcAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;

    /** Service types below this value are reserved for TIPC itself. */
    public static final int FIRST_USER_TYPE = 64;

    TipcAddress() {
    }
}
