package io.hadooptipc.bench.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CpuJiffiesTest {
    @Test
    void busyIsEverythingButIdleAndIowaitAndGuestTimeIsNotCountedTwice() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        CpuJiffies cpu = CpuJiffies.parse("cpu  100 2 30 500 8 4 6 0 50 0");

        assertEquals(142, cpu.busy());
        assertEquals(650, cpu.total());
    }

    @Test
    void utilisationIsTheBusyShareOfTheInterval() {
        CpuJiffies before = new CpuJiffies(100, 1000);
        CpuJiffies after = new CpuJiffies(160, 1200);

        assertEquals(new CpuJiffies(60, 200), after.since(before));
        assertEquals(30.0, after.since(before).percent(), 1e-9);
        assertEquals(0.0, new CpuJiffies(0, 0).percent());
    }

    @Test
    void busyTimeOfThisMachineGrowsWhileAThreadSpins() throws Exception {
        long before = CpuJiffies.busyNanos();
        long spin = System.nanoTime() + 200_000_000L;
        while (System.nanoTime() < spin) {
            Thread.onSpinWait();
        }
        assertTrue(CpuJiffies.busyNanos() > before);
    }

    @Test
    void rejectsAPerCpuLine() {
        assertThrows(IllegalArgumentException.class, () -> CpuJiffies.parse("cpu0 1 2 3 4 5 6 7 8"));
    }
}
