package io.hadooptipc.hdfs.affinity;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

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
public final class CpuTopology {
    private final BitSet online;
    private final List<BitSet> llcGroups;
    private final Map<Integer, Integer> socketOf;
    private final List<BitSet> numaNodes;
    private final String nic;
    private final BitSet nicIrqCpus;

    public CpuTopology(BitSet online, List<BitSet> llcGroups, Map<Integer, Integer> socketOf, List<BitSet> numaNodes,
            String nic, BitSet nicIrqCpus) {
        this.online = online;
        this.llcGroups = llcGroups;
        this.socketOf = socketOf;
        this.numaNodes = numaNodes;
        this.nic = nic;
        this.nicIrqCpus = nicIrqCpus;
    }

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
        return "CPUs " + CpuList.format(online) + ", LLCs "
                + llcGroups.stream().map(CpuList::format).collect(Collectors.toList())
                + ", sockets " + socketOf.values().stream().distinct().count()
                + ", NUMA nodes " + numaNodes.stream().map(CpuList::format).collect(Collectors.toList())
                + ", NIC " + (nic.isEmpty() ? "unknown" : nic + " IRQs on CPUs " + CpuList.format(nicIrqCpus));
    }

    public BitSet online() {
        return online;
    }

    public List<BitSet> llcGroups() {
        return llcGroups;
    }

    public Map<Integer, Integer> socketOf() {
        return socketOf;
    }

    public List<BitSet> numaNodes() {
        return numaNodes;
    }

    public String nic() {
        return nic;
    }

    public BitSet nicIrqCpus() {
        return nicIrqCpus;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CpuTopology)) {
            return false;
        }
        CpuTopology that = (CpuTopology) o;
        return Objects.equals(online, that.online) && Objects.equals(llcGroups, that.llcGroups)
                && Objects.equals(socketOf, that.socketOf) && Objects.equals(numaNodes, that.numaNodes)
                && Objects.equals(nic, that.nic) && Objects.equals(nicIrqCpus, that.nicIrqCpus);
    }

    @Override
    public int hashCode() {
        return Objects.hash(online, llcGroups, socketOf, numaNodes, nic, nicIrqCpus);
    }
}
