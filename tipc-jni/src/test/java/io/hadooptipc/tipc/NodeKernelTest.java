package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** availability(), node addresses and identities on the testbed's nodes. */
@Tag("tipc-kernel")
class NodeKernelTest {

    @Test
    void everyNodeReachesAllOthers() throws Exception {
        int nodes = Testbed.nodeCount();
        assertTrue(nodes >= 2, "the kernel suite needs at least two testbed nodes");
        Set<Integer> addresses = new HashSet<>();
        for (int i = 1; i <= nodes; i++) {
            String name = "n" + i;
            TipcAvailability a = on(name, Tipc::availability);
            assertEquals(TipcAvailability.Level.CLUSTER, a.level(), a.reason());
            assertEquals(nodes - 1, a.peerNodes(), a.reason());
            int address = Testbed.on(name, Tipc::ownNodeAddress);
            assertNotEquals(0, address);
            addresses.add(address);
            assertEquals(name, on(name, () -> Tipc.nodeIdentity(address)));
        }
        assertEquals(nodes, addresses.size(), "node addresses are distinct");
        List<Integer> fromN1 = on("n1", Tipc::reachableNodes);
        for (int i = 2; i <= nodes; i++) {
            int peer = Testbed.on("n" + i, Tipc::ownNodeAddress);
            assertTrue(fromN1.contains(peer));
            assertEquals("n" + i, on("n1", () -> Tipc.nodeIdentity(peer)));
        }
    }

    @Test
    void aNodeWithoutBearersIsNodeLocal() throws Exception {
        // The VM's root namespace has TIPC but no bearer: sockets work, no other node is reachable.
        TipcAvailability a = Tipc.availability();
        assertEquals(TipcAvailability.Level.NODE_LOCAL, a.level(), a.reason());
        assertTrue(a.reason().contains("tipc bearer enable"), a.reason());
    }
}
