package io.hadooptipc.tipc;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.HashMap;
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

    private static final Map<Integer, String> NAMES = new HashMap<>();
    private static final Map<Integer, String> TIPC_MEANING = new HashMap<>();

    static {
        NAMES.put(1, "EPERM");
        NAMES.put(EINTR, "EINTR");
        NAMES.put(9, "EBADF");
        NAMES.put(EAGAIN, "EAGAIN");
        NAMES.put(12, "ENOMEM");
        NAMES.put(13, "EACCES");
        NAMES.put(EINVAL, "EINVAL");
        NAMES.put(24, "EMFILE");
        NAMES.put(EPIPE, "EPIPE");
        NAMES.put(88, "ENOTSOCK");
        NAMES.put(EMSGSIZE, "EMSGSIZE");
        NAMES.put(92, "ENOPROTOOPT");
        NAMES.put(93, "EPROTONOSUPPORT");
        NAMES.put(94, "ESOCKTNOSUPPORT");
        NAMES.put(95, "EOPNOTSUPP");
        NAMES.put(EAFNOSUPPORT, "EAFNOSUPPORT");
        NAMES.put(EADDRINUSE, "EADDRINUSE");
        NAMES.put(99, "EADDRNOTAVAIL");
        NAMES.put(100, "ENETDOWN");
        NAMES.put(101, "ENETUNREACH");
        NAMES.put(103, "ECONNABORTED");
        NAMES.put(ECONNRESET, "ECONNRESET");
        NAMES.put(105, "ENOBUFS");
        NAMES.put(106, "EISCONN");
        NAMES.put(ENOTCONN, "ENOTCONN");
        NAMES.put(ETIMEDOUT, "ETIMEDOUT");
        NAMES.put(ECONNREFUSED, "ECONNREFUSED");
        NAMES.put(112, "EHOSTDOWN");
        NAMES.put(EHOSTUNREACH, "EHOSTUNREACH");
        NAMES.put(114, "EALREADY");
        NAMES.put(EINPROGRESS, "EINPROGRESS");
        TIPC_MEANING.put(EAFNOSUPPORT, "the running kernel has no AF_TIPC; load it with `modprobe tipc`"
                + " (needs a kernel built with CONFIG_TIPC)");
        TIPC_MEANING.put(EHOSTUNREACH, "no socket bound to that service is reachable: not bound yet,"
                + " or its node has no TIPC link to this one");
        TIPC_MEANING.put(ECONNREFUSED, "the peer socket refused or no longer accepts connections");
        TIPC_MEANING.put(ECONNRESET, "the peer closed the connection, or the TIPC link to its node went down");
        TIPC_MEANING.put(EPIPE, "the connection is gone: the peer closed it or the TIPC link to its node went down");
        TIPC_MEANING.put(ETIMEDOUT, "no answer within the connect timeout (TipcSocketOptions.CONNECT_TIMEOUT)");
        TIPC_MEANING.put(EMSGSIZE, "a TIPC message carries at most " + Tipc.MAX_MESSAGE_SIZE + " bytes");
        TIPC_MEANING.put(EADDRINUSE, "this socket already binds that name");
    }

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
