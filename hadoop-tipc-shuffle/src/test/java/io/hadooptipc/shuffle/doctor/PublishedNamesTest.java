package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.ShuffleServiceName;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verdicts on a name table; the table itself is read from a real kernel in DoctorKernelTest. */
class PublishedNamesTest {
    static final int TYPE = 18700;
    static final int SELF = 0x1001;
    static final int PEER = 0x2002;

    private final ShuffleServiceName a = name("10.0.0.1");
    private final ShuffleServiceName b = name("10.0.1.1");

    @Test
    void allPublishedByThisNodeIsOk() {
        Check c = PublishedNames.own(List.of(a, b), TYPE, SELF, List.of(bound(a, SELF), bound(b, SELF)), true,
                Integer::toHexString);
        assertEquals(Check.Status.OK, c.status(), c.toString());
    }

    @Test
    void unpublishedBeforeTheNodeManagerStartsIsOnlyAWarning() {
        Check c = PublishedNames.own(List.of(a, b), TYPE, SELF, List.of(), false, Integer::toHexString);
        assertEquals(Check.Status.WARN, c.status());
        assertTrue(c.finding().contains("no NodeManager runs here"), c.finding());
        assertTrue(c.fix().startsWith("start the NodeManager"), c.fix());
    }

    @Test
    void unpublishedWhileTheNodeManagerRunsFails() {
        Check c = PublishedNames.own(List.of(a, b), TYPE, SELF, List.of(), true, Integer::toHexString);
        assertEquals(Check.Status.FAIL, c.status());
        assertTrue(c.fix().contains("io.hadooptipc.shuffle.server.TipcShuffleHandler"), c.fix());
    }

    @Test
    void aNameHeldByAnotherNodeIsNamedAsSuch() {
        Check c = PublishedNames.own(List.of(a, b), TYPE, SELF, List.of(bound(a, SELF), bound(b, PEER)), true,
                n -> n == PEER ? "n2" : "?");
        assertEquals(Check.Status.WARN, c.status());
        assertTrue(c.finding().contains("10.0.1.1:13562 as tipc:{18700," ) && c.finding().contains("held by node n2"),
                c.finding());
    }

    @Test
    void aNameTheNodeManagerPublishesAndAnotherSocketBindsFailsNamingThatSocket() {
        Check other = PublishedNames.own(List.of(a, b), TYPE, SELF,
                List.of(bound(a, SELF), bound(b, SELF), bound(b, PEER)), true, n -> n == PEER ? "n2" : "n1");
        assertEquals(Check.Status.FAIL, other.status(), other.toString());
        assertTrue(other.finding().contains("10.0.1.1:13562 as tipc:{18700,") && other.finding().contains(
                "is bound by 2 sockets: node n1 port 7, node n2 port 7"), other.finding());
        assertTrue(other.fix().contains("tipc socket list"), other.fix());

        Check sameNode = PublishedNames.own(List.of(a), TYPE, SELF,
                List.of(bound(a, SELF), new NameTable.Binding(a.instance(), a.instance(), SELF, 9)), true,
                n -> "n1");
        assertEquals(Check.Status.FAIL, sameNode.status(), "a second socket on the NodeManager's own node");
        assertTrue(sameNode.finding().endsWith("node n1 port 7, node n1 port 9"), sameNode.finding());
    }

    @Test
    void aRangeOverEveryInstanceHoldsEachNameWithoutListingThem() {
        NameTable.Binding all = new NameTable.Binding(0, -1, PEER, 3);
        assertTrue(all.covers(a.instance()) && all.covers(0) && all.covers(-1));
        assertFalse(new NameTable.Binding(5, 9, PEER, 3).covers(-7), "unsigned: 4294967289 is past 9");
        Check c = PublishedNames.own(List.of(a), TYPE, SELF, List.of(bound(a, SELF), all), true,
                n -> n == PEER ? "n2" : "n1");
        assertEquals(Check.Status.FAIL, c.status(), c.toString());
        Check squatted = PublishedNames.own(List.of(a), TYPE, SELF, List.of(all), true, n -> n == PEER ? "n2" : "n1");
        assertTrue(squatted.finding().contains("held by node n2 port 3"), squatted.finding());
    }

    @Test
    void peersAreCountedPerNodeAndTheirAbsenceWarned() {
        Check some = PublishedNames.peers(SELF, List.of(bound(a, SELF), bound(a, PEER), bound(b, PEER)),
                n -> n == PEER ? "n2" : "self");
        assertEquals(Check.Status.OK, some.status());
        assertEquals("1 other node(s) publish: n2 (2)", some.finding());
        assertEquals(Check.Status.WARN, PublishedNames.peers(SELF, List.of(bound(a, SELF)), Integer::toHexString).status());
    }

    @Test
    void bearerListOutput() {
        assertEquals(Check.Status.FAIL, BearerCheck.of(0, "", "tipc bearer list").status());
        Check one = BearerCheck.of(0, "eth:eth0\n", "tipc bearer list");
        assertEquals(Check.Status.OK, one.status());
        assertEquals("eth:eth0", one.finding());
        assertEquals(Check.Status.WARN,
                BearerCheck.of(255, "Unable to get TIPC nl family id (module loaded?)\n", "tipc bearer list").status());
        assertEquals(Check.Status.SKIP, BearerCheck.run(List.of("/nonexistent/tipc", "bearer", "list")).status());
    }

    private static NameTable.Binding bound(ShuffleServiceName name, int node) {
        return new NameTable.Binding(name.instance(), name.instance(), node, 7);
    }

    private static ShuffleServiceName name(String ip) {
        try {
            return ShuffleServiceName.of(InetAddress.getByName(ip), 13562);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
