package io.hadooptipc.hdfs.affinity;

import java.util.BitSet;
import java.util.StringJoiner;

/** The kernel's CPU list format, {@code 0-3,8,10-11}, as used in sysfs and procfs. */
final class CpuList {
    private CpuList() {
    }

    static BitSet parse(String list) {
        BitSet cpus = new BitSet();
        for (String range : list.trim().split(",")) {
            if (range.isEmpty()) {
                continue;
            }
            int dash = range.indexOf('-');
            try {
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                if (from < 0 || to < from) {
                    throw new IllegalArgumentException("bad CPU range '" + range + "' in '" + list.trim() + "'");
                }
                cpus.set(from, to + 1);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad CPU list '" + list.trim() + "'", e);
            }
        }
        return cpus;
    }

    static String format(BitSet cpus) {
        StringJoiner list = new StringJoiner(",");
        for (int from = cpus.nextSetBit(0); from >= 0; from = cpus.nextSetBit(from)) {
            int to = cpus.nextClearBit(from) - 1;
            list.add(from == to ? String.valueOf(from) : from + "-" + to);
            from = to + 1;
        }
        return list.toString();
    }
}
