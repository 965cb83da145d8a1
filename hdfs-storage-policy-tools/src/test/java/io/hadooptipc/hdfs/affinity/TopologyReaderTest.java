package io.hadooptipc.hdfs.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyReaderTest {
    @TempDir
    Path dir;

    private static List<String> lists(List<BitSet> sets) {
        return sets.stream().map(CpuList::format).collect(Collectors.toList());
    }

    @Test
    void epycWithEightLlcsAndNicVectorsSpreadOverOneSocket() throws Exception {
        CpuTopology t = TopologyFixture.reader("epyc-2s-8llc.txt", dir).read("");
        assertEquals("0-31", CpuList.format(t.online()));
        assertEquals(List.of("0-3", "4-7", "8-11", "12-15", "16-19", "20-23", "24-27", "28-31"), lists(t.llcGroups()));
        assertEquals(2, new HashSet<>(t.socketOf().values()).size());
        assertEquals(1, t.socketOf().get(16));
        assertEquals(List.of("0-15", "16-31"), lists(t.numaNodes()));
        assertEquals("eth0", t.nic(), "the default route's interface");
        // only vectors that fired count; the parent bridge's interrupt is not the NIC's
        assertEquals("16,20,24,28", CpuList.format(t.nicIrqCpus()));
        assertEquals("16-31", CpuList.format(t.llcsOfNicIrqCpus()));
    }

    @Test
    void xeonWithHyperThreadingAndOneLlcPerSocket() throws Exception {
        CpuTopology t = TopologyFixture.reader("xeon-2s-ht.txt", dir).read("");
        assertEquals(List.of("0-7,16-23", "8-15,24-31"), lists(t.llcGroups()));
        assertEquals(0, t.socketOf().get(16));
        assertEquals(1, t.socketOf().get(31));
        assertEquals("0-3", CpuList.format(t.nicIrqCpus()), "idle queues on CPUs 4-7 do not count");
    }

    @Test
    void aNamedNicIsLookedUpInsteadOfTheDefaultRoute() throws Exception {
        CpuTopology t = TopologyFixture.reader("xeon-2s-ht.txt", dir).read("eth1");
        assertEquals("eth1", t.nic());
        assertEquals("8-9", CpuList.format(t.nicIrqCpus()));
    }

    @Test
    void recordedTwoVcpuVmWithAVirtioNic() throws Exception {
        CpuTopology t = TopologyFixture.reader("live-2vcpu-epyc.txt", dir).read("");
        assertEquals(List.of("0-1"), lists(t.llcGroups()));
        assertEquals("eth0", t.nic());
        // virtio2's queues are named after the device and its PCI function 0000:00:03.0
        assertEquals("0-1", CpuList.format(t.nicIrqCpus()));
    }

    @Test
    void aKernelThatDescribesNoCachesGroupsCpusBySocket() throws Exception {
        CpuTopology t = TopologyFixture.reader("live-2vcpu-nocache.txt", dir).read("");
        assertEquals(List.of("0-1"), lists(t.llcGroups()));
        assertEquals("eth0", t.nic());
    }

    @Test
    void liveMachine() throws Exception {
        CpuTopology t = new TopologyReader(Path.of("/sys"), Path.of("/proc")).read("");
        assertTrue(t.online().cardinality() >= Runtime.getRuntime().availableProcessors(), t.toString());
        BitSet covered = new BitSet();
        for (BitSet llc : t.llcGroups()) {
            assertFalse(covered.intersects(llc), "LLC groups overlap: " + t);
            covered.or(llc);
        }
        BitSet online = t.online();
        BitSet outside = (BitSet) online.clone();
        outside.andNot(covered);
        assertTrue(outside.isEmpty(), "CPUs in no LLC group: " + t);
        assertEquals(online.cardinality(), t.socketOf().size());
        BitSet strayIrqCpus = (BitSet) t.nicIrqCpus().clone();
        strayIrqCpus.andNot(online);
        assertTrue(strayIrqCpus.isEmpty(), t.toString());
    }

    @Test
    void cpuListsRoundTrip() {
        assertEquals("0-3,8,10-11", CpuList.format(CpuList.parse("0-3,8,10-11\n")));
        assertEquals("", CpuList.format(CpuList.parse("")));
    }
}
