package io.hadooptipc.hdfs.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoreAffinityManagerTest {
    @TempDir
    Path dir;

    private final CountDownLatch end = new CountDownLatch(1);
    private final List<Thread> writers = new ArrayList<>();

    @AfterEach
    void endWriters() throws InterruptedException {
        end.countDown();
        for (Thread t : writers) {
            t.join();
        }
    }

    /** A live thread standing in for a DataXceiver. */
    private Thread writer() {
        Thread t = new Thread(() -> {
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        writers.add(t);
        return t;
    }

    private CoreAffinityManager manager(String fixture, String nic) throws Exception {
        Path tree = Files.createTempDirectory(dir, "machine");
        CpuTopology t = TopologyFixture.reader(fixture, tree).read(nic);
        String allowed = Files.readAllLines(tree.resolve("proc/self/status")).get(0).split("\t")[1];
        return new CoreAffinityManager(t, CpuList.parse(allowed));
    }

    @Test
    void picksACoreSharingTheLlcOfANicIrqCoreButNotThatCore() throws Exception {
        CoreAffinityManager m = manager("epyc-2s-8llc.txt", "");
        CoreAffinityManager.Choice c = m.place(writer());
        assertEquals(17, c.cpu());
        assertTrue(c.reason().startsWith("shares an LLC with NIC eth0 IRQ CPUs 16,20,24,28 but takes none"), c.reason());
    }

    @Test
    void spreadsWritersBetweenLoadSamples() throws Exception {
        CoreAffinityManager m = manager("epyc-2s-8llc.txt", "");
        List<Integer> cpus = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            cpus.add(m.place(writer()).cpu());
        }
        assertEquals(List.of(17, 18, 19, 21, 22, 23, 25, 26, 27, 29, 30, 31, 17), cpus);
    }

    @Test
    void aWriterThatEndedNoLongerCounts() throws Exception {
        CoreAffinityManager m = manager("epyc-2s-8llc.txt", "");
        Thread done = new Thread(() -> { });
        assertEquals(17, m.place(done).cpu());
        done.start();
        done.join();
        assertEquals(17, m.place(writer()).cpu());
        assertTrue(m.cpuOf(done).isEmpty());
    }

    @Test
    void prefersTheLeastLoadedCandidate() throws Exception {
        CoreAffinityManager m = manager("epyc-2s-8llc.txt", "");
        double[] load = new double[32];
        Arrays.fill(load, 0.5);
        load[26] = 0.1;
        load[20] = 0.0; // a NIC IRQ core: never a candidate while others are
        m.updateLoad(load);
        CoreAffinityManager.Choice c = m.place(writer());
        assertEquals(26, c.cpu());
        assertTrue(c.reason().contains("load 0.10, 0 writers already there"), c.reason());
    }

    @Test
    void staysWithinTheCpusTheProcessMayUse() throws Exception {
        CoreAffinityManager m = manager("xeon-2s-ht.txt", "");
        assertEquals(4, m.place(writer()).cpu(), "socket 0: same LLC as eth0's CPUs 0-3");
        CoreAffinityManager other = manager("xeon-2s-ht.txt", "eth1");
        CoreAffinityManager.Choice c = other.place(writer());
        assertEquals(0, c.cpu(), "eth1's LLC is on socket 1, outside the cpuset");
        assertTrue(c.reason().startsWith("no allowed CPU shares an LLC with NIC IRQ CPUs 8-9"), c.reason());
    }

    @Test
    void whenEveryCoreTakesNicIrqsItStillPicksFromTheirLlc() throws Exception {
        CoreAffinityManager m = manager("live-2vcpu-epyc.txt", "");
        CoreAffinityManager.Choice c = m.place(writer());
        assertEquals(0, c.cpu());
        assertTrue(c.reason().contains("takes NIC IRQs itself"), c.reason());
        assertEquals(1, m.place(writer()).cpu());
    }

    @Test
    void withoutNicIrqInformationAnyAllowedCpu() throws Exception {
        CpuTopology t = TopologyFixture.reader("xeon-2s-ht.txt", dir).read("eth9");
        BitSet allowed = CpuList.parse("5-6");
        CoreAffinityManager.Choice c = new CoreAffinityManager(t, allowed).place(writer());
        assertEquals(5, c.cpu());
        assertTrue(c.reason().startsWith("NIC IRQ CPUs unknown"), c.reason());
    }
}
