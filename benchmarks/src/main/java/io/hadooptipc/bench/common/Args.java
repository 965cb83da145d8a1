package io.hadooptipc.bench.common;

import java.util.Arrays;

/** What the benchmarks' command lines share. */
public final class Args {
    private Args() {
    }

    /** A comma-separated list of integers, such as {@code 4096,65536}. */
    public static int[] ints(String csv) {
        return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
