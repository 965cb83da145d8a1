package io.hadooptipc.bench.binding;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.tipc.ShimCalls;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.knowm.xchart.CategoryChart;

/**
 * The cost of one system call through our JNI shim ({@link ShimCalls}) against JNA, with
 * both direct mapping ({@code Native.register}) and interface mapping ({@link Library}),
 * measured side by side in one run: the project chooses JNI or JNA per path by measurement.
 *
 * <pre>
 *   NativeCallBenchmark ROUNDS OUT_DIR
 * </pre>
 *
 * No TIPC is needed, so it runs on the host: poll() of an idle eventfd is the call overhead
 * alone; send()+recv() over an AF_UNIX socketpair adds moving 1 KiB or 64 KiB through
 * direct buffers, as the channels do.
 */
public final class NativeCallBenchmark {
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int POLLIN = 0x1;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;
    private static final int MSG_NOSIGNAL = 0x4000;

    private NativeCallBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: NativeCallBenchmark ROUNDS OUT_DIR");
            System.exit(2);
        }
        ShimCalls.ensureLoaded();
        new Run(Integer.parseInt(args[0]), Path.of(args[1])).execute();
    }

    /** The calls under test, with the shim's contract: the syscall's result, or -errno. */
    private interface Syscalls {
        int poll(int fd, int events, int timeoutMillis);

        int send(int fd, ByteBuffer direct, int position, int length);

        int recv(int fd, ByteBuffer direct, int position, int length);
    }

    private static final class Jni implements Syscalls {
        @Override
        public int poll(int fd, int events, int timeoutMillis) {
            return ShimCalls.poll(fd, events, timeoutMillis);
        }

        @Override
        public int send(int fd, ByteBuffer direct, int position, int length) {
            return ShimCalls.send(fd, direct, position, length);
        }

        @Override
        public int recv(int fd, ByteBuffer direct, int position, int length) {
            return ShimCalls.recv(fd, direct, position, length);
        }
    }

    /** libc through JNA's direct mapping: these native methods are bound by {@code Native.register}. */
    private static final class DirectLibc {
        static {
            Native.register(DirectLibc.class, Platform.C_LIBRARY_NAME);
        }

        static native int poll(Pointer fds, int nfds, int timeout) throws LastErrorException;

        static native long send(int fd, Pointer buf, long len, int flags) throws LastErrorException;

        static native long recv(int fd, Pointer buf, long len, int flags) throws LastErrorException;
    }

    /** libc through JNA's interface mapping: a proxy that looks each call up and converts its arguments. */
    private interface Libc extends Library {
        Libc INSTANCE = Native.load(Platform.C_LIBRARY_NAME, Libc.class);

        int poll(Pointer fds, int nfds, int timeout) throws LastErrorException;

        long send(int fd, Pointer buf, long len, int flags) throws LastErrorException;

        long recv(int fd, Pointer buf, long len, int flags) throws LastErrorException;

        int socketpair(int domain, int type, int protocol, int[] fds) throws LastErrorException;

        int eventfd(int initval, int flags) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    /**
     * What a JNA binding has to do around each call to keep the shim's contract: fill a
     * struct pollfd, find a direct buffer's address, turn errno into a negative result.
     */
    private abstract static class Jna implements Syscalls {
        private final Memory pollfd = new Memory(8); // struct pollfd { int fd; short events; short revents; }

        abstract int poll(Pointer fds, int timeout);

        abstract long send(int fd, Pointer buf, int length);

        abstract long recv(int fd, Pointer buf, int length);

        @Override
        public int poll(int fd, int events, int timeoutMillis) {
            pollfd.setInt(0, fd);
            pollfd.setShort(4, (short) events);
            pollfd.setShort(6, (short) 0);
            try {
                int r = poll(pollfd, timeoutMillis);
                return r > 0 ? pollfd.getShort(6) : r;
            } catch (LastErrorException e) {
                return -e.getErrorCode();
            }
        }

        @Override
        public int send(int fd, ByteBuffer direct, int position, int length) {
            try {
                return (int) send(fd, Native.getDirectBufferPointer(direct).share(position), length);
            } catch (LastErrorException e) {
                return -e.getErrorCode();
            }
        }

        @Override
        public int recv(int fd, ByteBuffer direct, int position, int length) {
            try {
                return (int) recv(fd, Native.getDirectBufferPointer(direct).share(position), length);
            } catch (LastErrorException e) {
                return -e.getErrorCode();
            }
        }
    }

    private static final class JnaDirect extends Jna {
        @Override
        int poll(Pointer fds, int timeout) {
            return DirectLibc.poll(fds, 1, timeout);
        }

        @Override
        long send(int fd, Pointer buf, int length) {
            return DirectLibc.send(fd, buf, length, MSG_NOSIGNAL);
        }

        @Override
        long recv(int fd, Pointer buf, int length) {
            return DirectLibc.recv(fd, buf, length, 0);
        }
    }

    private static final class JnaInterface extends Jna {
        @Override
        int poll(Pointer fds, int timeout) {
            return Libc.INSTANCE.poll(fds, 1, timeout);
        }

        @Override
        long send(int fd, Pointer buf, int length) {
            return Libc.INSTANCE.send(fd, buf, length, MSG_NOSIGNAL);
        }

        @Override
        long recv(int fd, Pointer buf, int length) {
            return Libc.INSTANCE.recv(fd, buf, length, 0);
        }
    }

    // ---- the side-by-side run ------------------------------------------------------------

    private enum Binding {
        JNI(new Jni()), JNA_DIRECT(new JnaDirect()), JNA_INTERFACE(new JnaInterface());

        final Syscalls calls;

        Binding(Syscalls calls) {
            this.calls = calls;
        }

        String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * A call under test, timed in batches of {@code times} calls: about 0.1 s each on a current
     * machine, short so that many interleaved rounds spread a busy moment over every binding.
     */
    private enum Call {
        POLL("poll(eventfd, POLLIN, 0)", 0, 200_000),
        SEND_RECV_1K("send+recv 1 KiB", 1024, 50_000),
        SEND_RECV_64K("send+recv 64 KiB", 64 * 1024, 10_000);

        final String title;
        final int bytes;
        final int times;

        Call(String title, int bytes, int times) {
            this.title = title;
            this.bytes = bytes;
            this.times = times;
        }

        String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private record Sample(Call call, Binding binding, int round, double nanosPerCall) {
    }

    private static final class Run {
        private final int rounds;
        private final Path out;
        private final List<Sample> samples = new ArrayList<>();
        private final int eventFd = Libc.INSTANCE.eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        private final int[] socketPair = new int[2];
        private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(64 * 1024);
        private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(64 * 1024);

        Run(int rounds, Path out) {
            this.rounds = rounds;
            this.out = out;
            Libc.INSTANCE.socketpair(AF_UNIX, SOCK_STREAM, 0, socketPair);
        }

        void execute() throws IOException {
            try {
                for (int round = -1; round < rounds; round++) { // round -1 warms up the JIT, not recorded
                    System.err.printf(round < 0 ? "warm-up round%n" : "round %d/%d%n", round + 1, rounds);
                    // Interleaved in one round, so drift in the shared machine hits every binding alike.
                    for (Call call : Call.values()) {
                        for (Binding binding : Binding.values()) {
                            double nanos = time(call, binding.calls);
                            if (round >= 0) {
                                samples.add(new Sample(call, binding, round, nanos));
                            }
                        }
                    }
                }
            } finally {
                Libc.INSTANCE.close(eventFd);
                Libc.INSTANCE.close(socketPair[0]);
                Libc.INSTANCE.close(socketPair[1]);
            }
            report();
        }

        /** Nanoseconds per call (per send+recv pair) over one batch. */
        private double time(Call call, Syscalls calls) throws IOException {
            long start = System.nanoTime();
            for (int i = 0; i < call.times; i++) {
                if (call == Call.POLL) {
                    check(calls.poll(eventFd, POLLIN, 0)); // 0: the eventfd is never signalled
                } else {
                    // A blocking socketpair holds 64 KiB, so the whole send goes in one call.
                    int sent = check(calls.send(socketPair[0], sendBuffer, 0, call.bytes));
                    for (int received = 0; received < sent; ) {
                        received += check(calls.recv(socketPair[1], receiveBuffer, received, sent - received));
                    }
                }
            }
            return (double) (System.nanoTime() - start) / call.times;
        }

        private static int check(int result) throws IOException {
            if (result < 0) {
                throw new IOException("system call failed: errno " + -result);
            }
            return result;
        }

        private double median(Call call, Binding binding) {
            return Stats.median(samples.stream().filter(s -> s.call == call && s.binding == binding)
                    .mapToDouble(Sample::nanosPerCall));
        }

        /** The median over rounds of the ratio within a round: the two ran side by side, so drift cancels. */
        private double medianRatio(Call call, Binding binding) {
            return Stats.median(IntStream.range(0, rounds).mapToDouble(
                    round -> sample(call, binding, round) / sample(call, Binding.JNI, round)));
        }

        private double sample(Call call, Binding binding, int round) {
            return samples.stream().filter(s -> s.call == call && s.binding == binding && s.round == round)
                    .findFirst().orElseThrow().nanosPerCall;
        }

        private void report() throws IOException {
            StringBuilder csv = new StringBuilder("call,binding,round,calls,ns_per_call\n");
            for (Sample s : samples) {
                csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%.1f%n", s.call.id(), s.binding.id(), s.round,
                        s.call.times, s.nanosPerCall));
            }

            StringBuilder table = new StringBuilder(
                    "| call | JNI ns | JNA direct ns | JNA interface ns | JNA direct/JNI | JNA interface/JNI |\n"
                            + "|---|---:|---:|---:|---:|---:|\n");
            for (Call call : Call.values()) {
                table.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | **%.2f** | **%.2f** |%n",
                        call.title, median(call, Binding.JNI), median(call, Binding.JNA_DIRECT),
                        median(call, Binding.JNA_INTERFACE), medianRatio(call, Binding.JNA_DIRECT),
                        medianRatio(call, Binding.JNA_INTERFACE)));
            }
            CategoryChart chart = Charts.bars("Cost per call, JNI vs JNA", "call", "ns per call (median)");
            List<String> calls = Arrays.stream(Call.values()).map(c -> c.title).toList();
            for (Binding binding : Binding.values()) {
                chart.addSeries(binding.id(), calls, Arrays.stream(Call.values()).map(c -> median(c, binding)).toList());
            }
            Charts.save(out, "plot", chart);
            Results.write(out, "native-calls", csv, String.format(Locale.ROOT, "Nanoseconds per call (per send+recv pair) through our JNI shim and"
                            + " through JNA %s, each binding keeping the shim's contract (result or -errno; JNA fills"
                            + " the struct pollfd and takes the direct buffer's address in Java). Medians of %d"
                            + " interleaved rounds (after one warm-up round) of %d, %d and %d calls; ratios are medians"
                            + " of the ratio within each round.%n%n",
                            Native.VERSION, rounds, Call.POLL.times, Call.SEND_RECV_1K.times, Call.SEND_RECV_64K.times)
                    + table);
        }
    }
}
