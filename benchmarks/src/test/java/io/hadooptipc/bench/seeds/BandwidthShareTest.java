package io.hadooptipc.bench.seeds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.hadooptipc.bench.seeds.BandwidthShare.Point;
import io.hadooptipc.bench.seeds.BandwidthShare.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

class BandwidthShareTest {
    private static final double EPS = 1e-9;

    @Test
    void newConnectionsGetTheirPartOfAllConnections() {
        assertEquals(2.0 / 66, BandwidthShare.modelShare(2, 64), EPS);
        assertEquals(0.5, BandwidthShare.modelShare(64, 64), EPS);
        // The seed's eq. 2 and 4: BNA and IB split the link between the new and the existing.
        assertEquals(20, BandwidthShare.bandwidthForNewAllocation(100, 16, 64), EPS);
        assertEquals(80, BandwidthShare.interferedBandwidth(100, 16, 64), EPS);
    }

    @Test
    void runsRoundTripThroughCsv() {
        Run run = new Run("host-reno", "tcp", 2, 100, 64, 16, 75.25, 20.5);
        assertEquals(run, Run.parse(run.toCsv()));
    }

    @Test
    void eachRoundIsPredictedFromTheLinkMeasuredInThatRound() {
        List<Run> runs = List.of(
                new Run("testbed", "tipc", 1, 40, 64, 0, 38, 0),
                new Run("testbed", "tipc", 1, 40, 64, 16, 28, 10),
                new Run("testbed", "tipc", 2, 40, 64, 0, 36, 0),
                new Run("testbed", "tipc", 2, 40, 64, 16, 30, 6),
                new Run("testbed", "tipc", 3, 40, 64, 0, 40, 0),
                new Run("testbed", "tipc", 3, 40, 64, 16, 32, 8));

        List<Point> points = BandwidthShare.points(runs);

        assertEquals(1, points.size());
        Point p = points.get(0);
        assertEquals(3, p.rounds());
        assertEquals(38, p.capacityMbit(), EPS);
        assertEquals(38, p.totalMbit(), EPS);
        assertEquals(8, p.bMbit(), EPS);
        assertEquals(0.2, p.modelShare(), EPS);
        assertEquals(0.2, p.share(), EPS); // 10/38, 6/36, 8/40
        assertEquals(7.6, p.bnaMbit(), EPS); // 38, 36 and 40 Mbit/s times 0.2
        assertEquals(0, p.errorMbit(), EPS); // +2.4, -1.2 and 0
        assertEquals(0, p.relativeError(), EPS);
        assertEquals(0.95, p.utilisation(), EPS);
    }

    @Test
    void settingsStaySeparateAndInOrder() {
        List<Run> runs = List.of(
                new Run("testbed", "tipc", 1, 40, 64, 0, 40, 0),
                new Run("testbed", "tipc", 1, 40, 64, 64, 20, 20),
                new Run("testbed", "tipc", 1, 40, 64, 2, 39, 1),
                new Run("testbed", "tcp", 1, 40, 64, 0, 30, 0),
                new Run("testbed", "tcp", 1, 40, 64, 2, 27, 3));

        List<Point> points = BandwidthShare.points(runs);

        assertEquals(List.of("tcp/2", "tipc/2", "tipc/64"),
                points.stream().map(p -> p.transport() + "/" + p.bConnections()).toList());
        assertEquals(0.1 - 2.0 / 66, points.get(0).shareError(), EPS);
    }

    @Test
    void aRoundWithoutItsLinkMeasurementIsAnError() {
        List<Run> runs = List.of(new Run("host-bbr", "tcp", 1, 100, 64, 0, 95, 0),
                new Run("host-bbr", "tcp", 2, 100, 64, 2, 92, 3));
        assertThrows(IllegalArgumentException.class, () -> BandwidthShare.points(runs));
    }
}
