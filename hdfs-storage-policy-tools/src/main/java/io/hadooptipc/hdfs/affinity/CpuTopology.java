package io.hadooptipc.hdfs.affinity;

import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * What the affinity manager knows of the machine: which CPUs share a last-level cache,
 * which CPUs take the NIC's interrupts, and the socket and NUMA node of each CPU.
 *
 * @param online the online CPUs
 * @param llcGroups CPUs sharing one last-level cache, one set per cache
 * @param socketOf each online CPU's physical package
 * @param numaNodes CPUs of each NUMA node, one set per node (empty when the kernel has no NUMA)
 * @param nic the network interface whose interrupts were looked for, empty when none was found
 * @param nicIrqCpus CPUs that took that interface's interrupts; empty when unknown
 */
public record CpuTopology(BitSet online, List<BitSet> llcGroups, Map<Integer, Integer> socketOf,
        List<BitSet> numaNodes, String nic, BitSet nicIrqCpus) {

    /** The CPUs sharing a last-level cache with {@code cpu}, the CPU itself included. */
    public BitSet llcOf(int cpu) {
        for (BitSet group : llcGroups) {
            if (group.get(cpu)) {
                return (BitSet) group.clone();
            }
        }
        BitSet alone = new BitSet();
        alone.set(cpu);
        return alone;
    }

    /** The CPUs sharing a last-level cache with any CPU that takes the NIC's interrupts. */
    public BitSet llcsOfNicIrqCpus() {
        BitSet cpus = new BitSet();
        nicIrqCpus.stream().forEach(cpu -> cpus.or(llcOf(cpu)));
        return cpus;
    }

    @Override
    public String toString() {
        return "CPUs " + CpuList.format(online) + ", LLCs " + llcGroups.stream().map(CpuList::format).toList()
                + ", sockets " + socketOf.values().stream().distinct().count()
                + ", NUMA nodes " + numaNodes.stream().map(CpuList::format).toList()
                + ", NIC " + (nic.isEmpty() ? "unknown" : nic + " IRQs on CPUs " + CpuList.format(nicIrqCpus));
    }
}
