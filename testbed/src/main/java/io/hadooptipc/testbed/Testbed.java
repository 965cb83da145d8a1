package io.hadooptipc.testbed;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The TIPC nodes of testbed/vm/tipc-vm: network namespaces n1..nN, each its own
 * TIPC node. Code runs "on" a node by running on a thread that has entered the node's
 * network namespace (setns affects only the calling thread), so sockets it opens
 * belong to that node. Other programs run there through {@code ip netns exec}.
 */
public final class Testbed {
    private static final int CLONE_NEWNET = 0x40000000;
    private static final int O_RDONLY = 0;
    private static final Map<String, ExecutorService> NODES = new ConcurrentHashMap<>();

    private interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int setns(int fd, int nstype) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private Testbed() {
    }

    /** The number of nodes the testbed started, from TIPC_TESTBED_NODES; fails outside the testbed. */
    public static int nodeCount() {
        String n = System.getenv("TIPC_TESTBED_NODES");
        if (n == null) {
            throw new IllegalStateException("not inside the TIPC testbed: run via testbed/vm/tipc-vm --nodes N");
        }
        return Integer.parseInt(n);
    }

    /** Threads in node {@code name}'s network namespace. */
    public static ExecutorService node(String name) {
        return NODES.computeIfAbsent(name, n -> Executors.newCachedThreadPool(task -> {
            Thread t = new Thread(() -> {
                enter(n);
                task.run();
            }, "node-" + n);
            t.setDaemon(true);
            return t;
        }));
    }

    /** Runs {@code work} on node {@code name} and waits for its result. */
    public static <T> T on(String name, Callable<T> work) throws Exception {
        return get(node(name).submit(work));
    }

    /** Starts {@code work} on node {@code name}. */
    public static <T> Future<T> start(String name, Callable<T> work) {
        return node(name).submit(work);
    }

    public static <T> T get(Future<T> f) throws Exception {
        try {
            return f.get(5, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                Exception cause = (Exception) e.getCause();
                throw cause;
            }
            throw e;
        }
    }

    private static void enter(String name) {
        int fd = LIBC.open("/run/netns/" + name, O_RDONLY);
        try {
            LIBC.setns(fd, CLONE_NEWNET);
        } finally {
            LIBC.close(fd);
        }
    }

    /** Debian's python3, whose socket module has AF_TIPC. */
    public static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    /** Starts {@code command} in node {@code name} via {@code ip netns exec}. */
    public static Process exec(String name, String... command) throws IOException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(List.of(command));
        return new ProcessBuilder(full).redirectErrorStream(true).start();
    }

    /**
     * The sockets this process has open now, as /proc/self/fd names them ({@code socket:[inode]}).
     * Unlike a count of all descriptors, the JVM's own jars and files opened or closed meanwhile
     * do not change it, and an inode names one socket even when its descriptor number is reused.
     */
    public static Set<String> openSockets() throws IOException {
        Set<String> sockets = new TreeSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:")) {
                        sockets.add(target);
                    }
                } catch (NoSuchFileException e) {
                    // another thread closed it since the listing: not open now
                }
            }
        }
        return sockets;
    }

    /**
     * A TCP connection to another testbed machine's {@code port}, once its JVM, which starts about when
     * this one does, listens there: a control connection, which no TIPC setting affects.
     */
    public static Socket connect(String host, int port, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return new Socket(host, port);
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(host + " did not listen on " + port + " within " + timeout, e);
                }
                Thread.sleep(1000);
            }
        }
    }

    /** Runs {@code command} (words split at spaces) in the guest's root namespace; fails if it fails. */
    public static String sh(String command) throws Exception {
        return output(new ProcessBuilder(command.split(" ")).redirectErrorStream(true).start(), Duration.ofSeconds(30));
    }

    /** Waits for a process and returns its output; fails with the output if it exits non-zero. */
    public static String output(Process p, Duration timeout) throws Exception {
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("process did not finish within " + timeout + ": "
                    + new String(p.getInputStream().readNBytes(p.getInputStream().available()), StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError("exit " + p.exitValue() + ": " + out);
        }
        return out;
    }
}
