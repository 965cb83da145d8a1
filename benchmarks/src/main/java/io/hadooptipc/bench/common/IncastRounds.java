package io.hadooptipc.bench.common;

/** What an incast receiver measured: each round's seconds, and the machine's CPU time over all of them. */
public record IncastRounds(double[] seconds, CpuJiffies cpu) {
}
