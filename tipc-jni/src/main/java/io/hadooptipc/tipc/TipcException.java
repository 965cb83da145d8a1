package io.hadooptipc.tipc;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Optional;

/**
 * A failed TIPC system call. The message names the call, the address involved (if
 * any), the errno with its symbolic name, and what that errno usually means for TIPC.
 */
public class TipcException extends IOException {
    private static final long serialVersionUID = 1L;

    public static final int EINTR = 4;
    public static final int EPIPE = 32;
    public static final int EAGAIN = 11;
    public static final int EINVAL = 22;
    public static final int EMSGSIZE = 90;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int ECONNRESET = 104;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EINPROGRESS = 115;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(EINTR, "EINTR"), Map.entry(9, "EBADF"),
            Map.entry(EAGAIN, "EAGAIN"), Map.entry(12, "ENOMEM"), Map.entry(13, "EACCES"),
            Map.entry(EINVAL, "EINVAL"), Map.entry(24, "EMFILE"), Map.entry(EPIPE, "EPIPE"),
            Map.entry(88, "ENOTSOCK"), Map.entry(EMSGSIZE, "EMSGSIZE"), Map.entry(92, "ENOPROTOOPT"),
            Map.entry(93, "EPROTONOSUPPORT"), Map.entry(94, "ESOCKTNOSUPPORT"), Map.entry(95, "EOPNOTSUPP"),
            Map.entry(EAFNOSUPPORT, "EAFNOSUPPORT"), Map.entry(EADDRINUSE, "EADDRINUSE"),
            Map.entry(99, "EADDRNOTAVAIL"), Map.entry(100, "ENETDOWN"), Map.entry(101, "ENETUNREACH"),
            Map.entry(103, "ECONNABORTED"), Map.entry(ECONNRESET, "ECONNRESET"), Map.entry(105, "ENOBUFS"),
            Map.entry(106, "EISCONN"), Map.entry(ENOTCONN, "ENOTCONN"), Map.entry(ETIMEDOUT, "ETIMEDOUT"),
            Map.entry(ECONNREFUSED, "ECONNREFUSED"), Map.entry(112, "EHOSTDOWN"),
            Map.entry(EHOSTUNREACH, "EHOSTUNREACH"), Map.entry(114, "EALREADY"),
            Map.entry(EINPROGRESS, "EINPROGRESS"));

    private static final Map<Integer, String> TIPC_MEANING = Map.of(
            EAFNOSUPPORT, "the running kernel has no AF_TIPC; load it with `modprobe tipc`"
                    + " (needs a kernel built with CONFIG_TIPC)",
            EHOSTUNREACH, "no socket bound to that service is reachable: not bound yet,"
                    + " or its node has no TIPC link to this one",
            ECONNREFUSED, "the peer socket refused or no longer accepts connections",
            ECONNRESET, "the peer closed the connection, or the TIPC link to its node went down",
            EPIPE, "the connection is gone: the peer closed it or the TIPC link to its node went down",
            ETIMEDOUT, "no answer within the connect timeout (TipcSocketOptions.CONNECT_TIMEOUT)",
            EMSGSIZE, "a TIPC message carries at most " + Tipc.MAX_MESSAGE_SIZE + " bytes",
            EADDRINUSE, "this socket already binds that name");

    private final String call;
    private final transient SocketAddress address;
    private final int errno;

    TipcException(String call, SocketAddress address, int errno, String detail) {
        super(call + (address == null ? "" : " " + address) + " failed: " + detail);
        this.call = call;
        this.address = address;
        this.errno = errno;
    }

    /** The exception for a syscall that returned {@code -errno}. */
    static TipcException of(String call, SocketAddress address, int errno) {
        StringBuilder detail = new StringBuilder(errnoName(errno)).append(" (errno ").append(errno);
        if (TipcNative.loadFailure() == null) {
            detail.append(", ").append(TipcNative.strerror(errno));
        }
        detail.append(')');
        String meaning = TIPC_MEANING.get(errno);
        if (meaning != null) {
            detail.append(": ").append(meaning);
        }
        return new TipcException(call, address, errno, detail.toString());
    }

    static String errnoName(int errno) {
        return NAMES.getOrDefault(errno, "errno " + errno);
    }

    /** The system call that failed, e.g. {@code connect}. */
    public String call() {
        return call;
    }

    /** The address the call was given, if it took one. */
    public Optional<SocketAddress> address() {
        return Optional.ofNullable(address);
    }

    /** The errno the call failed with; 0 when the failure was not a system call's. */
    public int errno() {
        return errno;
    }
}
