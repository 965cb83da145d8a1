package io.hadooptipc.tipc;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * AF_UNIX sockets made through JNA, wrapped in our channel classes: the host has no AF_TIPC,
 * but the channels' descriptor handling and the JNI shim's calls are the same on any socket,
 * and real descriptors are what fd reuse and /proc/self/fd need.
 */
final class UnixSockets {
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_CLOEXEC = 0x80000;

    private interface LibC extends Library {
        int socketpair(int domain, int type, int protocol, int[] fds) throws LastErrorException;

        int socket(int domain, int type, int protocol) throws LastErrorException;

        int bind(int fd, byte[] sockaddr, int length) throws LastErrorException;

        int listen(int fd, int backlog) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private UnixSockets() {
    }

    /** Two connected stream channels. */
    static TipcSocketChannel[] pair() {
        int[] fds = new int[2];
        LIBC.socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
        return new TipcSocketChannel[] {TipcSocketChannel.accepted(fds[0], null), TipcSocketChannel.accepted(fds[1], null)};
    }

    /** A listening stream socket at an abstract address nobody connects to. */
    static TipcServerSocketChannel listening() throws Exception {
        int fd = LIBC.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        byte[] sockaddr = new byte[2 + 1 + 20];
        sockaddr[0] = AF_UNIX; // sa_family, little endian; then '\0' and a name: the abstract namespace
        byte[] name = String.format("tipc-jni-%011d", System.nanoTime() % 100_000_000_000L).getBytes();
        System.arraycopy(name, 0, sockaddr, 3, Math.min(name.length, 20));
        LIBC.bind(fd, sockaddr, sockaddr.length);
        LIBC.listen(fd, 16);
        return TipcServerSocketChannel.listening(fd, false);
    }

    /** Closes a descriptor no channel owns. */
    static void close(int fd) {
        LIBC.close(fd);
    }
}
