package io.hadooptipc.bench.seeds;

/**
 * How many merge passes an external merge sort of sorted runs makes with a given fan-out:
 * Hadoop's own count (one per merge its {@code Merger} does) and the textbook one (levels of
 * a balanced merge tree), which is the count the sort-params seed reasons with.
 */
final class MergePasses {
    private MergePasses() {
    }

    /**
     * The passes {@code Merger.merge} makes over {@code segments} on-disk segments with
     * {@code mapreduce.task.io.sort.factor} {@code factor}: one per intermediate merge, each
     * turning some segments into one, plus the final merge. Its first intermediate merge takes
     * only as many segments as make every later one take exactly {@code factor}
     * ({@code Merger.MergeQueue.getPassFactor}).
     */
    static int hadoop(int segments, int factor) {
        checkArguments(segments, factor);
        int left = segments;
        int passes = 1;
        if (left > factor) {
            int mod = (left - 1) % (factor - 1);
            left -= mod == 0 ? factor - 1 : mod;
            passes++;
        }
        for (; left > factor; passes++) {
            left -= factor - 1;
        }
        return passes;
    }

    /** A map task's passes: a single spill becomes the map's output as it is, more are merged. */
    static int mapSide(int spills, int factor) {
        return spills <= 1 ? 0 : hadoop(spills, factor);
    }

    /** Levels of a balanced {@code factor}-way merge tree over {@code runs} runs: ceil(log_factor(runs)). */
    static int levels(int runs, int factor) {
        checkArguments(runs, factor);
        int levels = 0;
        for (long width = 1; width < runs; width *= factor) {
            levels++;
        }
        return levels;
    }

    private static void checkArguments(int runs, int factor) {
        if (runs < 1 || factor < 2) {
            throw new IllegalArgumentException("runs " + runs + ", factor " + factor);
        }
    }
}
