package io.hadooptipc.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The whole machine's CPU time so far, from the first ("cpu") line of /proc/stat, in jiffies
 * summed over all CPUs: busy is everything but idle and iowait. The difference of two readings
 * is what sar and top report as utilisation.
 */
public record CpuJiffies(long busy, long total) {
    public static CpuJiffies read() throws IOException {
        return parse(Files.readAllLines(Path.of("/proc/stat")).get(0));
    }

    /** This machine's busy CPU time since boot in nanoseconds, all CPUs, softirq included. */
    public static long busyNanos() throws IOException {
        return read().busy() * 10_000_000L; // USER_HZ is 100 on Linux
    }

    /** Parses "cpu user nice system idle iowait irq softirq steal [guest guest_nice]". */
    static CpuJiffies parse(String line) {
        String[] fields = line.strip().split("\\s+");
        if (!fields[0].equals("cpu") || fields.length < 9) {
            throw new IllegalArgumentException("not the cpu line of /proc/stat: " + line);
        }
        // guest and guest_nice are already counted in user and nice.
        long[] v = Arrays.stream(fields, 1, 9).mapToLong(Long::parseLong).toArray();
        long total = Arrays.stream(v).sum();
        return new CpuJiffies(total - v[3] - v[4], total);
    }

    public CpuJiffies since(CpuJiffies earlier) {
        return new CpuJiffies(busy - earlier.busy, total - earlier.total);
    }

    /** Busy share of the time in percent; 0 for an interval too short to count a jiffy. */
    public double percent() {
        return total == 0 ? 0 : 100.0 * busy / total;
    }
}
