package io.hadooptipc.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * This JVM's CPU time in its JIT compiler threads and in its VM thread, in nanoseconds as the kernel's
 * scheduler counts them ({@code /proc/self/task/TID/schedstat}, first field), not in 10 ms ticks. Work
 * there is the JVM's own, not the program's: compiling hot code, and the safepoint operations of the VM
 * thread, which with the serial collector (a JVM on one CPU) include every garbage collection. Both kinds
 * of thread live as long as the JVM, so the difference of two readings is what they did in between.
 */
public record JvmThreadsCpu(long compilerNanos, long vmThreadNanos) {
    public static JvmThreadsCpu read() throws IOException {
        long compiler = 0;
        long vm = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String name;
                long nanos;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                    nanos = Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ", 2)[0]);
                } catch (NoSuchFileException e) {
                    continue; // the thread ended meanwhile
                }
                if (name.contains("CompilerThre")) {
                    compiler += nanos;
                } else if (name.equals("VM Thread")) {
                    vm += nanos;
                }
            }
        }
        return new JvmThreadsCpu(compiler, vm);
    }

    public JvmThreadsCpu since(JvmThreadsCpu earlier) {
        return new JvmThreadsCpu(compilerNanos - earlier.compilerNanos, vmThreadNanos - earlier.vmThreadNanos);
    }
}
