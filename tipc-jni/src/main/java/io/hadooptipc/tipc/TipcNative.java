package io.hadooptipc.tipc;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The JNI shim: one static method per system call. Every int/long result is the
 * syscall's result, or {@code -errno} on failure; turning that into an exception
 * that names the call and the address is the Java side's job.
 */
final class TipcNative {
    static final int AF_TIPC = 30;
    static final int SOL_SOCKET = 1;
    static final int SOL_TIPC = 271;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_RCVTIMEO = 20;
    static final int SO_SNDTIMEO = 21;

    static final int SOCK_STREAM = 1;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_RDM = 4;
    static final int SOCK_SEQPACKET = 5;

    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;
    static final int SHUT_RDWR = 2;

    static final int POLLIN = 0x1;
    static final int POLLOUT = 0x4;

    static final int EPOLLIN = 0x1;
    static final int EPOLLOUT = 0x4;
    static final int EPOLLERR = 0x8;
    static final int EPOLLHUP = 0x10;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLL_CTL_MOD = 3;

    private static final String LIBRARY = "META-INF/native/linux-x86_64/libhadooptipc.so";
    /** Overrides the library bundled in the jar, e.g. for a build on another architecture. */
    static final String LIBRARY_PATH_PROPERTY = "hadooptipc.native.library";
    /**
     * Tells the library's JNI_OnLoad which class to register its functions with: this one's name,
     * as a relocating (shading) build has rewritten it.
     */
    private static final String CLASS_PROPERTY = "hadooptipc.native.class";

    private static final Throwable LOAD_FAILURE = load();

    private TipcNative() {
    }

    /** Null when the library is loaded; otherwise why it is not. */
    static Throwable loadFailure() {
        return LOAD_FAILURE;
    }

    static void ensureLoaded() throws TipcException {
        if (LOAD_FAILURE != null) {
            throw new TipcException("load native library " + LIBRARY, null, 0,
                    LOAD_FAILURE.toString());
        }
    }

    private static Throwable load() {
        try {
            String override = System.getProperty(LIBRARY_PATH_PROPERTY);
            if (override != null) {
                loadAndRegister(Paths.get(override).toAbsolutePath());
                return null;
            }
            if (!"Linux".equals(System.getProperty("os.name"))
                    || !"amd64".equals(System.getProperty("os.arch"))) {
                return new UnsatisfiedLinkError("AF_TIPC needs Linux; the bundled library is for linux-x86_64, this is "
                        + System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
            }
            try (InputStream in = TipcNative.class.getClassLoader().getResourceAsStream(LIBRARY)) {
                if (in == null) {
                    return new UnsatisfiedLinkError(LIBRARY + " is missing from the classpath");
                }
                Path copy = LibraryCopy.create(in, Paths.get(System.getProperty("java.io.tmpdir")));
                try {
                    loadAndRegister(copy);
                } finally {
                    copy.toFile().delete(); // the library stays mapped
                }
            }
            return null;
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            return e;
        }
    }

    private static void loadAndRegister(Path library) {
        synchronized (System.class) { // another copy of these classes may be loading its library
            System.setProperty(CLASS_PROPERTY, TipcNative.class.getName().replace('.', '/'));
            try {
                System.load(library.toString());
            } finally {
                System.clearProperty(CLASS_PROPERTY);
            }
        }
    }

    static native int socket(int type);

    static native int bind(int fd, byte[] sockaddr);

    static native int connect(int fd, byte[] sockaddr);

    static native int listen(int fd, int backlog);

    /** Accepts a connection; the peer's sockaddr_tipc is written to {@code peer}. */
    static native int accept(int fd, byte[] peer);

    static native int getsockname(int fd, byte[] sockaddr);

    static native int getpeername(int fd, byte[] sockaddr);

    /** recv() into a direct buffer's bytes [position, position + length). */
    static native int recv(int fd, ByteBuffer direct, int position, int length);

    /** send() from a direct buffer's bytes [position, position + length), MSG_NOSIGNAL. */
    static native int send(int fd, ByteBuffer direct, int position, int length);

    static native int sendto(int fd, ByteBuffer direct, int position, int length, byte[] sockaddr);

    static native int recvfrom(int fd, ByteBuffer direct, int position, int length, byte[] sockaddr);

    /** sendfile(2) from a file descriptor at an explicit offset; returns bytes sent. */
    static native long sendfile(int fd, FileDescriptor file, long offset, long count);

    static native int setsockopt(int fd, int level, int option, int value);

    /** setsockopt(2) of SO_RCVTIMEO or SO_SNDTIMEO ({@code opt}) to {@code millis} (0: none), as a struct timeval. */
    static native int setTimeout(int fd, int opt, int millis);

    /** getsockopt for int-valued options; the value is returned through {@code value[0]}. */
    static native int getsockopt(int fd, int level, int option, int[] value);

    /** ioctl(SIOCGETNODEID): the 16-byte identity of the node with address {@code node}. */
    static native int nodeIdentity(int fd, int node, byte[] identity);

    static native int setBlocking(int fd, boolean blocking);

    static native int shutdown(int fd, int how);

    static native int close(int fd);

    static native int poll(int fd, int events, int timeoutMillis);

    static native int epollCreate();

    static native int epollCtl(int epfd, int op, int fd, int events);

    /** Waits for events; fills {@code fdsAndEvents} with (fd, events) pairs and returns the number of pairs. */
    static native int epollWait(int epfd, int[] fdsAndEvents, int timeoutMillis);

    static native int eventfd();

    /** Adds one to an eventfd counter. */
    static native int eventfdSignal(int fd);

    /** Resets an eventfd counter to zero. */
    static native int eventfdDrain(int fd);

    static native String strerror(int errno);
}
