package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Per-CPU load from {@code /proc/stat}: the busy share of each CPU's time between two
 * samples. Busy is everything but idle and iowait (a CPU waiting on I/O can run a writer).
 * Not thread-safe: one sampling thread calls {@link #sample()}.
 */
public final class CpuLoadSampler {
    private final Path stat;
    private long[] busy = new long[0];
    private long[] total = new long[0];

    public CpuLoadSampler(Path proc) {
        this.stat = proc.resolve("stat");
    }

    /** @return each CPU's load, 0 to 1, since the previous call; index: CPU number (0 before the first delta) */
    public double[] sample() throws IOException {
        return update(Files.readAllLines(stat));
    }

    double[] update(List<String> statLines) {
        int cpus = 0;
        for (String line : statLines) {
            if (line.startsWith("cpu") && line.length() > 3 && Character.isDigit(line.charAt(3))) {
                cpus = Math.max(cpus, Integer.parseInt(line.substring(3, line.indexOf(' '))) + 1);
            }
        }
        long[] newBusy = new long[cpus];
        long[] newTotal = new long[cpus];
        for (String line : statLines) {
            if (!line.startsWith("cpu") || line.length() <= 3 || !Character.isDigit(line.charAt(3))) {
                continue;
            }
            String[] f = line.split("\\s+");
            int cpu = Integer.parseInt(f[0].substring(3));
            long sum = 0;
            // user nice system idle iowait irq softirq steal; guest time is already in user and nice
            for (int i = 1; i <= Math.min(8, f.length - 1); i++) {
                sum += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
            newTotal[cpu] = sum;
            newBusy[cpu] = sum - idle;
        }
        double[] load = new double[cpus];
        for (int cpu = 0; cpu < cpus && cpu < total.length; cpu++) {
            long dt = newTotal[cpu] - total[cpu];
            if (dt > 0) {
                load[cpu] = Math.min(1.0, Math.max(0.0, (double) (newBusy[cpu] - busy[cpu]) / dt));
            }
        }
        busy = newBusy;
        total = newTotal;
        return load;
    }
}
