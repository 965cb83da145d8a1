package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.testbed.CountingReporter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a reduce task does when TIPC reports a node lost, on the host: a clock, a timer and a TCP probe driven by
 * the test, the scheduler's side recorded.
 */
class NodeLossTest {
    private static final int SELF = 0x1001001;
    private static final int A = 0x1001002; // serves host H
    private static final int B = 0x1001003;
    private static final int C = 0x1001004;
    private static final int D = 0x1001005;
    private static final int SQUATTER = 0x1001009;
    private static final String H = "10.0.0.7:13562";
    private static final long HOLD_DOWN = 3_000;
    private static final long INTERVAL = 6_000;

    private final CountingReporter reporter = new CountingReporter();
    private final Clock clock = new Clock();
    private final Timer timer = new Timer();
    private final Probe probe = new Probe();
    private final Recorded hosts = new Recorded();
    private final List<ShuffleServiceName> closed = new ArrayList<>();
    private final NodeLoss loss = new NodeLoss(hosts, probe, timer, clock, new TransferCounters(reporter), HOLD_DOWN,
            2_000, INTERVAL, SELF);
    private final ShuffleServiceName name;

    NodeLossTest() throws IOException {
        name = ShuffleServiceName.of(InetAddress.getByName("10.0.0.7"), 13562);
        loss.closeStreamsWith(closed::add);
        for (int peer : new int[] {SELF, A, B}) {
            loss.nodeUp(peer); // as the topology service reports the linked nodes at its start
        }
        loss.proved(H, name, A);
    }

    @Test
    void theNodeOfAServerSocketIsReadFromItsIdentity() {
        assertEquals(Integer.valueOf(A), NodeLoss.nodeOf("tipc:<1001002:3418965>"));
        assertEquals(Integer.valueOf(0xfe001002), NodeLoss.nodeOf("tipc:<fe001002:1>"));
        assertNull(NodeLoss.nodeOf("tipc:<socket-pair>"));
        assertNull(NodeLoss.nodeOf("10.0.0.7:13562"));
        assertNull(NodeLoss.nodeOf(null));
    }

    @Test
    void onlyTheNodeWhoseSocketProvedTheTokenCondemnsAHost() throws IOException {
        loss.nodeLost(SQUATTER); // a process there bound H's name; its node dying says nothing of H
        loss.nodeLost(B);
        ShuffleServiceName unproven = ShuffleServiceName.of(InetAddress.getByName("10.0.0.8"), 13562);
        loss.nodeUp(C);
        assertFalse(loss.holds(H));
        assertEquals(List.of(), hosts.events);
        assertEquals(List.of(), closed);
        assertFalse(loss.holds("10.0.0.8:13562"), "a host never proven is never held: " + unproven);

        loss.nodeLost(A);
        assertTrue(loss.holds(H));
        assertEquals(List.of("held " + H), hosts.events);
        assertEquals(List.of(name), closed, "its TIPC streams are closed at once");
    }

    @Test
    void aHostThatAnswersOverTcpAfterTheHoldDownIsFetchedFromOverTcpAndNotReported() {
        loss.nodeLost(A);
        probe.answers = true;
        clock.advance(HOLD_DOWN - 1);
        timer.runDue(clock.now);
        assertEquals(List.of(), probe.asked, "no probe before the hold-down is over");
        clock.advance(1);
        timer.runDue(clock.now);
        assertEquals(List.of("10.0.0.7:13562/2000"), probe.asked);
        assertEquals(List.of("held " + H, "released " + H), hosts.events);
        assertFalse(loss.holds(H));
        assertEquals(1, reporter.get(TipcShuffleCounter.NODE_LOSS_TCP_ANSWERED));
        assertEquals(0, reporter.get(TipcShuffleCounter.HOSTS_LOST));
    }

    @Test
    void aHostThatDoesNotAnswerIsLostReportedEveryIntervalAndReleasedWhenItsNodeAndNameAreBack() {
        loss.nodeLost(A);
        clock.advance(HOLD_DOWN);
        clock.probeTakes = 2_000;
        timer.runDue(clock.now);
        assertEquals(List.of("held " + H, "lost " + H + " node 1001002 after 5000 ms"), hosts.events);
        assertEquals(1, reporter.get(TipcShuffleCounter.HOSTS_LOST));
        assertEquals(5_000, reporter.get(TipcShuffleCounter.HOSTS_LOST_REPORT_MS));

        clock.advance(INTERVAL);
        timer.runDue(clock.now);
        clock.advance(INTERVAL);
        timer.runDue(clock.now);
        assertEquals(2, hosts.count("still lost " + H), "reported again every interval while lost");

        loss.nodeUp(A); // links up, but its NodeManager's name not published yet
        assertTrue(loss.holds(H));
        loss.published(name);
        assertFalse(loss.holds(H));
        assertEquals("released " + H, hosts.last());
        assertEquals(1, reporter.get(TipcShuffleCounter.HOSTS_BACK_AFTER_NODE_LOSS));
        clock.advance(10 * INTERVAL);
        timer.runDue(clock.now);
        assertEquals(2, hosts.count("still lost " + H), "no reports once released");
        assertEquals(1, reporter.get(TipcShuffleCounter.HOSTS_LOST), "logged and counted once");
    }

    @Test
    void aNameAloneDoesNotReleaseAHostWhoseNodeIsStillDown() {
        loss.nodeLost(A);
        loss.published(name); // another node's process binds the name meanwhile
        assertTrue(loss.holds(H));
    }

    @Test
    void aLinkThatComesBackWithinTheHoldDownReleasesTheHostWithoutAProbeOrAReport() {
        loss.nodeLost(A);
        clock.advance(1_200);
        loss.nodeUp(A);
        loss.published(name);
        assertFalse(loss.holds(H));
        clock.advance(HOLD_DOWN);
        timer.runDue(clock.now);
        assertEquals(List.of(), probe.asked);
        assertEquals(List.of("held " + H, "released " + H), hosts.events);
        assertEquals(0, reporter.get(TipcShuffleCounter.HOSTS_LOST));
    }

    @Test
    void aNodeThatLostEveryLinkReportsNothing() {
        NodeLoss onePeer = new NodeLoss(hosts, probe, timer, clock, new TransferCounters(reporter), HOLD_DOWN,
                2_000, INTERVAL, SELF);
        onePeer.nodeUp(A);
        onePeer.proved(H, name, A);
        onePeer.nodeLost(A); // its only peer gone: as likely this node's bearer as a dead peer
        clock.advance(HOLD_DOWN);
        timer.runDue(clock.now);
        assertEquals(List.of(), probe.asked);
        assertEquals(List.of("held " + H, "released " + H), hosts.events);
        assertEquals(1, reporter.get(TipcShuffleCounter.NODE_LOSS_LOCAL_FAULTS));
        assertEquals(0, reporter.get(TipcShuffleCounter.HOSTS_LOST));
    }

    @Test
    void twoPeersLostAtOnceOfTwoIsALocalFault() {
        loss.nodeLost(B);
        clock.advance(400);
        loss.nodeLost(A); // both peers gone within the hold-down: this node's bearer, not two dead nodes
        clock.advance(HOLD_DOWN);
        timer.runDue(clock.now);
        assertEquals(List.of(), probe.asked);
        assertEquals(1, reporter.get(TipcShuffleCounter.NODE_LOSS_LOCAL_FAULTS));
    }

    @Test
    void halfThePeersLostWithinTheHoldDownIsALocalFaultOneOfTwoIsNot() {
        loss.nodeUp(C);
        loss.nodeUp(D);
        loss.nodeLost(C);
        clock.advance(2_000);
        loss.nodeLost(A); // two of four peers within the hold-down
        clock.advance(HOLD_DOWN);
        timer.runDue(clock.now);
        assertEquals(List.of(), probe.asked);
        assertEquals(1, reporter.get(TipcShuffleCounter.NODE_LOSS_LOCAL_FAULTS));

        NodeLoss threeNodes = new NodeLoss(hosts, probe, timer, clock, new TransferCounters(reporter), HOLD_DOWN,
                2_000, INTERVAL, SELF);
        threeNodes.nodeUp(A);
        threeNodes.nodeUp(B);
        threeNodes.proved(H, name, A);
        threeNodes.nodeLost(A); // one of two peers: a dead node in a cluster of three
        clock.advance(HOLD_DOWN);
        timer.runDue(clock.now);
        assertEquals(List.of("10.0.0.7:13562/2000"), probe.asked);
        assertEquals(1, reporter.get(TipcShuffleCounter.HOSTS_LOST));
    }

    @Test
    void badValuesNameTheirKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new NodeLoss(hosts, probe,
                timer, clock, new TransferCounters(reporter), -1, 2_000, INTERVAL, SELF));
        assertTrue(e.getMessage().contains("mapreduce.shuffle.tipc.node-loss.hold-down.ms"), e.getMessage());
    }

    /** The test's clock; a probe advances it by {@link #probeTakes}. */
    private static final class Clock implements LongSupplier {
        long now = 1_000_000;
        long probeTakes;

        void advance(long millis) {
            now += millis;
        }

        @Override
        public long getAsLong() {
            return now;
        }
    }

    /** Tasks due at a time of the test's clock, run when the test says so, at the clock's time. */
    private final class Timer implements NodeLoss.Delays {
        private final List<Long> due = new ArrayList<>();
        private final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void after(long millis, Runnable task) {
            due.add(clock.now + millis);
            tasks.add(task);
        }

        /** Runs every task due by {@code time}, and those they schedule that are due by then too. */
        void runDue(long time) {
            for (int i = 0; i < tasks.size(); ) {
                if (due.get(i) <= time) {
                    Runnable task = tasks.remove(i);
                    due.remove(i);
                    task.run();
                    i = 0;
                } else {
                    i++;
                }
            }
        }
    }

    private final class Probe implements NodeLoss.HostProbe {
        final List<String> asked = new ArrayList<>();
        boolean answers;

        @Override
        public boolean answers(String host, int port, int timeoutMillis) {
            asked.add(host + ":" + port + "/" + timeoutMillis);
            clock.advance(clock.probeTakes);
            return answers;
        }
    }

    private static final class Recorded implements NodeLoss.Hosts {
        final List<String> events = new ArrayList<>();

        @Override
        public void held(String host) {
            events.add("held " + host);
        }

        @Override
        public void lost(String host, int node, long sinceMillis) {
            events.add("lost " + host + " node " + Integer.toHexString(node) + " after " + sinceMillis + " ms");
        }

        @Override
        public void stillLost(String host) {
            events.add("still lost " + host);
        }

        @Override
        public void released(String host) {
            events.add("released " + host);
        }

        int count(String event) {
            int n = 0;
            for (Iterator<String> it = events.iterator(); it.hasNext(); ) {
                if (it.next().equals(event)) {
                    n++;
                }
            }
            return n;
        }

        String last() {
            return events.get(events.size() - 1);
        }
    }
}
