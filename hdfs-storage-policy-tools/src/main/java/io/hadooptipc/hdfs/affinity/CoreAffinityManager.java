package io.hadooptipc.hdfs.affinity;

import java.util.BitSet;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.WeakHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks a CPU for each DataNode writer thread before its data flows, after seed 002's
 * policy: a core that shares the last-level cache with a core taking the NIC's interrupts
 * (the packets the writer copies are warm there) but is not such a core (their softirq
 * work would compete with the writer), the least loaded of those.
 *
 * <p>Load is the sampled {@code /proc/stat} busy share plus one for each live writer thread
 * already placed on the CPU, so a burst of writers between two samples still spreads.
 * Fallbacks, each said in the debug log: no such core, then the NIC interrupt cores' caches
 * themselves; no NIC interrupt information, then every CPU the process may use.
 */
public final class CoreAffinityManager {
    private static final Logger LOG = LoggerFactory.getLogger(CoreAffinityManager.class);

    /** A choice and why it was made. */
    public static final class Choice {
        private final int cpu;
        private final String reason;

        public Choice(int cpu, String reason) {
            this.cpu = cpu;
            this.reason = reason;
        }

        public int cpu() {
            return cpu;
        }

        public String reason() {
            return reason;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Choice)) {
                return false;
            }
            Choice that = (Choice) o;
            return cpu == that.cpu && Objects.equals(reason, that.reason);
        }

        @Override
        public int hashCode() {
            return Objects.hash(cpu, reason);
        }

        @Override
        public String toString() {
            return "Choice[cpu=" + cpu + ", reason=" + reason + "]";
        }
    }

    private final CpuTopology topology;
    private final BitSet allowed;
    /** Writer threads and their CPUs; weak, and pruned of dead threads, as writers end with their block. */
    private final Map<Thread, Integer> writers = new WeakHashMap<>();
    private volatile double[] sampledLoad = new double[0];

    /** @param allowed the CPUs this process may run on (a cpuset or taskset may restrict them) */
    public CoreAffinityManager(CpuTopology topology, BitSet allowed) {
        this.topology = topology;
        this.allowed = (BitSet) allowed.clone();
        this.allowed.and(topology.online());
        if (this.allowed.isEmpty()) {
            throw new IllegalArgumentException("no online CPU is allowed: online " + CpuList.format(topology.online())
                    + ", allowed " + CpuList.format(allowed));
        }
    }

    /** Called by the sampling thread with each new {@code /proc/stat} delta. */
    public void updateLoad(double[] load) {
        sampledLoad = load;
    }

    /** Chooses a CPU for the calling writer thread, binds the thread to it and records it. */
    public Choice pinCurrentThread() {
        Thread writer = Thread.currentThread();
        Choice choice = place(writer);
        BitSet cpu = new BitSet();
        cpu.set(choice.cpu);
        LinuxThreads.setCurrentThreadAffinity(cpu);
        if (LOG.isDebugEnabled()) {
            LOG.debug("Writer thread '{}' (tid {}) on CPU {}: {}", writer.getName(), LinuxThreads.currentThreadId(),
                    choice.cpu, choice.reason);
        }
        return choice;
    }

    /** The CPU a live writer thread was placed on, if it was. */
    public OptionalInt cpuOf(Thread writer) {
        synchronized (writers) {
            Integer cpu = writers.get(writer);
            return cpu == null || !writer.isAlive() ? OptionalInt.empty() : OptionalInt.of(cpu);
        }
    }

    /** Chooses a CPU for {@code writer} and records it there, without binding. */
    Choice place(Thread writer) {
        synchronized (writers) {
            writers.remove(writer);
            writers.keySet().removeIf(t -> !t.isAlive());
            Choice choice = choose();
            writers.put(writer, choice.cpu);
            return choice;
        }
    }

    /** The choice for a new writer now; callers hold the lock on {@code writers}. */
    private Choice choose() {
        BitSet irqCpus = topology.nicIrqCpus();
        BitSet nearIrq = topology.llcsOfNicIrqCpus();
        nearIrq.and(allowed);
        BitSet candidates = (BitSet) nearIrq.clone();
        candidates.andNot(irqCpus);
        String why;
        if (!candidates.isEmpty()) {
            why = "shares an LLC with NIC " + topology.nic() + " IRQ CPUs " + CpuList.format(irqCpus) + " but takes none";
        } else if (!nearIrq.isEmpty()) {
            candidates = nearIrq;
            why = "every allowed CPU sharing an LLC with NIC " + topology.nic() + " IRQ CPUs " + CpuList.format(irqCpus)
                    + " takes NIC IRQs itself";
        } else {
            candidates = (BitSet) allowed.clone();
            why = irqCpus.isEmpty() ? "NIC IRQ CPUs unknown" : "no allowed CPU shares an LLC with NIC IRQ CPUs "
                    + CpuList.format(irqCpus);
        }
        int[] writersOn = new int[allowed.length()];
        writers.values().forEach(cpu -> {
            if (cpu < writersOn.length) {
                writersOn[cpu]++;
            }
        });
        double[] load = sampledLoad;
        int best = -1;
        double bestScore = Double.MAX_VALUE;
        for (int cpu = candidates.nextSetBit(0); cpu >= 0; cpu = candidates.nextSetBit(cpu + 1)) {
            double score = (cpu < load.length ? load[cpu] : 0) + writersOn[cpu];
            if (score < bestScore) {
                best = cpu;
                bestScore = score;
            }
        }
        double bestLoad = best < load.length ? load[best] : 0;
        return new Choice(best, String.format("%s; least loaded of %s (load %.2f, %d writers already there)",
                why, CpuList.format(candidates), bestLoad, writersOn[best]));
    }
}
