package io.hadooptipc.shuffle.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hadooptipc.shuffle.NameBindings;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcScope;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceRange;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The doctor on real TIPC nodes of the testbed (tipc-vm --nodes 3): ready (n1, with a
 * bearer, links to n2 and n3, and its shuffle names bound), no bearer (the guest's root
 * namespace), no peer (a namespace whose bearer is on a veth that leads nowhere), and a UDP
 * bearer's address, port and unicast peer (two namespaces of their own on a veth pair).
 */
@Tag("tipc-kernel")
class DoctorKernelTest {
    static final int TYPE = TipcShuffleConfig.DEFAULT_SERVICE_TYPE;

    @Test
    void readyWhereBearerLinksAndNamesAreUp() throws Exception {
        int port = ShuffleHandler.DEFAULT_SHUFFLE_PORT;
        TipcServerSocketChannel n1 = Testbed.on("n1", () -> publish(port));
        TipcServerSocketChannel n2 = Testbed.on("n2", () -> publish(port));
        try {
            ShuffleServiceName n2Name = Testbed.on("n2", () -> ShuffleServiceName.ofThisHost(port)).stream()
                    .filter(n -> !n.address().isLoopbackAddress()).findFirst().orElseThrow();
            Testbed.on("n1", () -> Tipc.awaitPublished(n2Name.tipcAddress(TYPE), Duration.ofSeconds(20)));

            Map<String, Check> checks = Testbed.on("n1", () -> byName(NodeDoctor.forThisNode(new Configuration())));
            for (Check c : checks.values()) {
                assertEquals(Check.Status.OK, c.status(), c.toString());
            }
            assertEquals("n1", checks.get("node-identity").finding().split(" ")[0]);
            assertEquals("eth:eth0", checks.get("bearers").finding());
            assertTrue(checks.get("links").finding().startsWith("up to " + (Testbed.nodeCount() - 1) + " node(s)"),
                    checks.get("links").finding());
            assertTrue(checks.get("links").finding().contains("n2"), checks.get("links").finding());
            assertTrue(checks.get("link-tolerance").finding().startsWith("1500 ms on " + (Testbed.nodeCount() - 1)
                    + " link(s)"), checks.get("link-tolerance").finding()); // TIPC's default tolerance
            String island = checks.get("island").finding();
            assertTrue(island.contains("TIPC network id 4711; links to ") && island.contains("n2"), island);
            assertTrue(checks.get("peer-names").finding().contains("n2 ("), checks.get("peer-names").finding());

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit = Testbed.on("n1", () -> Doctor.run(new String[]{"--json"},
                    new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
            JsonNode report = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
            assertEquals(0, exit, report.toString());
            assertTrue(report.get("ready").asBoolean());
        } finally {
            n1.close();
            n2.close();
        }
    }

    @Test
    void anotherSocketBindingEveryInstanceFailsTheNamesWithItsNodeAndPort() throws Exception {
        int port = ShuffleHandler.DEFAULT_SHUFFLE_PORT;
        TipcServerSocketChannel n1 = Testbed.on("n1", () -> publish(port));
        TipcServerSocketChannel squatter = Testbed.on("n3", () -> TipcServerSocketChannel.open()
                .bind(TipcServiceRange.all(TYPE), TipcScope.CLUSTER));
        try {
            int ref = squatter.getLocalAddress().ref();
            ShuffleServiceName n1Name = Testbed.on("n1", () -> ShuffleServiceName.ofThisHost(port)).stream()
                    .filter(n -> !n.address().isLoopbackAddress()).findFirst().orElseThrow();
            awaitBoundBy(n1Name, squatter.getLocalAddress().node());
            Check names = Testbed.on("n1", () -> byName(NodeDoctor.forThisNode(new Configuration())))
                    .get("shuffle-names");
            assertEquals(Check.Status.FAIL, names.status(), names.toString());
            assertTrue(names.finding().contains(n1Name + " as ") && names.finding().contains(
                    "node n3 port " + Integer.toUnsignedString(ref)), names.finding());
        } finally {
            n1.close();
            squatter.close();
        }
    }

    @Test
    void inANodesOwnNetworkNamespaceTheKernelShowsItCanEncryptTipc() throws Exception {
        Configuration declared = new Configuration();
        declared.setBoolean("mapreduce.shuffle.ssl.enabled", true);
        declared.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, true);
        // n1 is not the initial namespace: no /proc/sys/net/tipc there, yet the testbed's kernel has TIPC crypto.
        Check encryption = Testbed.on("n1", () -> byName(NodeDoctor.forThisNode(declared)).get("encryption"));
        assertEquals(Check.Status.WARN, encryption.status(), encryption.toString());
        assertTrue(encryption.finding().contains("the kernel can encrypt TIPC"), encryption.toString());
    }

    @Test
    void notReadyWithoutABearer() throws Exception {
        // The guest's root namespace: TIPC is loaded, but the testbed enables bearers only in n1..nN.
        DoctorReport report = NodeDoctor.forThisNode(new Configuration()).examine();
        Map<String, Check> checks = byName(report);
        assertEquals(Check.Status.OK, checks.get("af-tipc").status());
        assertEquals(Check.Status.FAIL, checks.get("bearers").status(), report.text());
        assertEquals("no bearer enabled", checks.get("bearers").finding());
        assertEquals(Check.Status.FAIL, checks.get("links").status(), report.text());
        assertFalse(report.ready());
        assertEquals(Check.Status.WARN, checks.get("shuffle-names").status(), report.text());
        assertTrue(checks.get("shuffle-names").finding().contains("no NodeManager runs here"), report.text());
    }

    @Test
    void notReadyWithABearerThatReachesNoPeer() throws Exception {
        Testbed.sh("ip netns add lone");
        try {
            Testbed.sh("ip link add lone0 type veth peer name lone1");
            Testbed.sh("ip link set lone0 netns lone");
            Testbed.sh("ip -n lone link set lo up");
            Testbed.sh("ip -n lone link set lone0 up");
            Testbed.sh("ip netns exec lone tipc node set identity lone");
            Testbed.sh("ip netns exec lone tipc bearer enable media eth device lone0");
            awaitOwnAddress("lone", Duration.ofSeconds(10));

            DoctorReport report = Testbed.on("lone", () -> NodeDoctor.forThisNode(new Configuration()).examine());
            Map<String, Check> checks = byName(report);
            assertEquals("lone", checks.get("node-identity").finding().split(" ")[0], report.text());
            assertEquals(Check.Status.OK, checks.get("bearers").status(), report.text());
            assertEquals("eth:lone0", checks.get("bearers").finding());
            assertEquals(Check.Status.FAIL, checks.get("links").status(), report.text());
            assertEquals("no TIPC link up to another node", checks.get("links").finding());
            assertFalse(report.ready());
        } finally {
            Testbed.sh("ip netns del lone");
        }
    }

    @Test
    void aUdpBearerWithUnicastDiscoveryShowsItsAddressPortAndPeer() throws Exception {
        // Two namespaces of their own on a veth pair, each with a UDP bearer that lists the other as its peer
        // (no multicast), as nodes behind routers are set up; 192.0.2.0/24 is reserved for documentation.
        Testbed.sh("ip netns add udpa");
        Testbed.sh("ip netns add udpb");
        try {
            Testbed.sh("ip link add udpa0 netns udpa type veth peer name udpb0 netns udpb");
            for (String[] node : new String[][]{{"udpa", "192.0.2.1", "192.0.2.2"}, {"udpb", "192.0.2.2", "192.0.2.1"}}) {
                String ns = "ip netns exec " + node[0] + " ";
                Testbed.sh("ip -n " + node[0] + " link set lo up");
                Testbed.sh("ip -n " + node[0] + " addr add " + node[1] + "/24 dev " + node[0] + "0");
                Testbed.sh("ip -n " + node[0] + " link set " + node[0] + "0 up");
                Testbed.sh(ns + "tipc node set identity " + node[0]);
                Testbed.sh(ns + "tipc bearer enable media udp name u localip " + node[1] + " remoteip " + node[2]);
            }
            awaitLink("udpa", Duration.ofSeconds(30));

            DoctorReport report = Testbed.on("udpa", () -> NodeDoctor.forThisNode(new Configuration()).examine());
            Map<String, Check> checks = byName(report);
            assertEquals("udp:u", checks.get("bearers").finding(), report.text());
            Check udp = checks.get("udp-bearer");
            assertEquals(Check.Status.WARN, udp.status(), report.text());
            assertTrue(udp.finding().startsWith("udp:u on 192.0.2.1 port 6118, unicast peers 192.0.2.2; UDP port 6118"
                    + " is bound on 192.0.2.1, open to every host"), udp.finding());
            assertEquals(Check.Status.OK, checks.get("links").status(), report.text());
            assertTrue(checks.get("links").finding().contains("udpb"), report.text());
        } finally {
            Testbed.sh("ip netns del udpa");
            Testbed.sh("ip netns del udpb");
        }
    }

    private static void awaitLink(String namespace, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (Testbed.on(namespace, Tipc::reachableNodes).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(namespace + " has no TIPC link " + timeout.toSeconds() + " s after its bearer came up");
            }
            Thread.sleep(100);
        }
    }

    /** TIPC assigns a node its address only after a trial of about a second on its first bearer. */
    private static void awaitOwnAddress(String namespace, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (Testbed.on(namespace, Tipc::ownNodeAddress) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(namespace + " has no TIPC address " + timeout.toSeconds() + " s after its bearer came up");
            }
            Thread.sleep(100);
        }
    }

    /** Waits until n1's topology service reports a binding of {@code name} by a socket on {@code node}. */
    private static void awaitBoundBy(ShuffleServiceName name, int node) throws Exception {
        assertTrue(Testbed.on("n1", () -> NameBindings.boundBy(name.tipcAddress(TYPE), node, Duration.ofSeconds(20))),
                name + " not bound on node " + Integer.toHexString(node) + " within 20 s");
    }

    /** Binds this node's shuffle names as TipcShuffleHandler publishes them. */
    private static TipcServerSocketChannel publish(int port) throws Exception {
        TipcServerSocketChannel server = TipcServerSocketChannel.open();
        for (ShuffleServiceName name : ShuffleServiceName.ofThisHost(port)) {
            server.bind(name.tipcAddress(TYPE), name.scope());
        }
        return server;
    }

    private static Map<String, Check> byName(NodeDoctor doctor) {
        return byName(doctor.examine());
    }

    private static Map<String, Check> byName(DoctorReport report) {
        Map<String, Check> checks = new HashMap<>();
        report.checks().forEach(c -> checks.put(c.name(), c));
        assertEquals(15, checks.size(), report.text());
        return checks;
    }
}
