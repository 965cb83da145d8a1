package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reduce task's node loss on real TIPC links, from its transports as a task starts them ({@link TaskTransports}
 * with {@link TipcShuffleConfig#NODE_LOSS_ENABLED}): a link flap and a short blackout of the map host report
 * nothing, a map host cut off is reported lost, and a host whose node comes back is fetched from over TIPC again.
 * <p>
 * Three namespaces of their own on a bridge (so that the testbed's nodes keep their links, and so that the reduce
 * task keeps a peer when the map host goes: the loss of its only peer is a local fault): {@code la} the reduce task,
 * {@code lb} the map host (our handler, serving over TIPC and HTTP/TCP), {@code lc} a third node.
 */
@Tag("tipc-kernel")
class NodeLossKernelTest {
    private static final String[] NODES = {"la", "lb", "lc"};
    /** The nodes' addresses, in TEST-NET-2 (RFC 5737), which nothing else in the guest uses. */
    private static final String SUBNET = "198.51.100.";
    private static final String MAP_HOST_IP = SUBNET + 2;
    private static final int MAPS = 2;
    private static final int PARTITION = 8 << 10;
    /** The blackout's hold-down: room for the blackout and for the links to come back after it. */
    private static final long BLACKOUT_HOLD_DOWN_MS = 10_000;
    private static final long BLACKOUT_AFTER_LOSS_MS = 2 * TipcShuffleConfig.DEFAULT_NODE_LOSS_PROBE_TIMEOUT_MS;
    private static final Duration AWAIT = Duration.ofSeconds(30);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcShuffleHandler handler;
    static int port;

    private final CountingReporter reporter = new CountingReporter();
    private final HostReports hosts = new HostReports();
    private TaskTransports transports;

    /** What node loss tells the task's scheduler, a line each. */
    private static final class HostReports implements NodeLoss.Hosts {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        @Override
        public void held(String host) {
            lines.add("held " + host);
        }

        @Override
        public void lost(String host, int node, long sinceMillis) {
            lines.add("lost " + host);
        }

        @Override
        public void stillLost(String host) {
            lines.add("still lost " + host);
        }

        @Override
        public void released(String host) {
            lines.add("released " + host);
        }

        String next(Duration timeout) throws InterruptedException {
            return lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @BeforeAll
    static void network() throws Exception {
        Testbed.sh("ip netns add lbr");
        Testbed.sh("ip -n lbr link add br0 type bridge");
        Testbed.sh("ip -n lbr link set br0 up");
        for (int i = 0; i < NODES.length; i++) {
            String n = NODES[i];
            Testbed.sh("ip netns add " + n);
            Testbed.sh("ip link add " + n + "0 netns " + n + " type veth peer name p" + n + " netns lbr");
            Testbed.sh("ip -n lbr link set p" + n + " master br0 up");
            Testbed.sh("ip -n " + n + " link set lo up");
            Testbed.sh("ip -n " + n + " addr add " + SUBNET + (i + 1) + "/24 dev " + n + "0");
            Testbed.sh("ip -n " + n + " link set " + n + "0 up");
            Testbed.sh("ip netns exec " + n + " tipc node set identity " + n);
            Testbed.sh("ip netns exec " + n + " tipc bearer enable media eth device " + n + "0");
        }
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
        handler = outputs.serveIn("lb", TipcShuffleHandler::new, conf);
        port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
    }

    @AfterAll
    static void removeNetwork() throws Exception {
        try {
            MapOutputFixture.stopIn("lb", handler);
        } finally {
            for (String n : new String[] {"la", "lb", "lc", "lbr"}) {
                Testbed.sh("ip netns del " + n);
            }
        }
    }

    /**
     * Starts a task on la, with node loss on and a hold-down of {@code holdDownMs}, whose map host lb is tied to its
     * node by a fetch over TIPC, la linked to lb and lc.
     */
    private void startTaskFetchedOverTipc(long holdDownMs) throws Exception {
        awaitLinkedAndPublished();
        JobConf job = new JobConf();
        job.setBoolean(TipcShuffleConfig.NODE_LOSS_ENABLED, true);
        job.setLong(TipcShuffleConfig.NODE_LOSS_HOLD_DOWN_MS, holdDownMs);
        transports = Testbed.on("la", () -> TaskTransports.start(job, new TransferCounters(reporter), hosts,
                KernelLinkCrypto.KALLSYMS));
        assertEquals("TIPC", fetch(0));
    }

    @AfterEach
    void closeTask() throws Exception {
        if (transports != null) {
            transports.close();
        }
        Testbed.sh("ip -n lb link set lb0 up");
        Testbed.exec("lb", "tipc", "bearer", "enable", "media", "eth", "device", "lb0").waitFor(); // fails if enabled
    }

    @Test
    void aLinkFlapLongerThanTheHoldDownGoesToHttpTcpReportsNothingAndComesBackToTipc() throws Exception {
        startTaskFetchedOverTipc(TipcShuffleConfig.DEFAULT_NODE_LOSS_HOLD_DOWN_MS);
        Testbed.sh("ip netns exec lb tipc bearer disable media eth device lb0");
        assertEquals("held " + host(), hosts.next(AWAIT), "TIPC's report of lb's loss");
        assertEquals("released " + host(), hosts.next(AWAIT), "after the hold-down, lb's shuffle port answers TCP");
        assertEquals(1, reporter.get(TipcShuffleCounter.NODE_LOSS_TCP_ANSWERED));
        assertEquals("TCP", fetch(1), "while TIPC is down, over HTTP/TCP");
        Testbed.sh("ip netns exec lb tipc bearer enable media eth device lb0");
        assertEquals("TIPC", fetchOverTipcWithin(AWAIT, 1), "lb's name published again");
        assertNothingReported();
    }

    @Test
    void aBlackoutShorterThanTheHoldDownReportsNothingAndTheHostIsFetchedFromOverTipcAgain() throws Exception {
        startTaskFetchedOverTipc(BLACKOUT_HOLD_DOWN_MS);
        Testbed.sh("ip -n lb link set lb0 down"); // TIPC and IP both gone
        assertEquals("held " + host(), hosts.next(AWAIT), "TIPC's report of lb's loss");
        long decisionDue = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BLACKOUT_HOLD_DOWN_MS);
        Thread.sleep(BLACKOUT_AFTER_LOSS_MS); // longer than a probe: one sent at the loss would fail
        Testbed.sh("ip -n lb link set lb0 up");
        assertEquals("released " + host(), hosts.next(AWAIT), "lb linked again and its name published");
        assertNull(hosts.next(Duration.ofNanos(decisionDue - System.nanoTime()).plusSeconds(1)),
                "no decision when the hold-down ends");
        assertEquals("TIPC", fetchOverTipcWithin(AWAIT, 1));
        assertNothingReported();
    }

    @Test
    void aHostCutOffIsReportedLostItsFetchesFailAtOnceAndItIsFetchedFromAgainWhenItComesBack() throws Exception {
        startTaskFetchedOverTipc(TipcShuffleConfig.DEFAULT_NODE_LOSS_HOLD_DOWN_MS);
        Testbed.sh("ip -n lb link set lb0 down");
        assertEquals("held " + host(), hosts.next(AWAIT), "TIPC's report of lb's loss");
        assertEquals("lost " + host(), hosts.next(AWAIT), "no TCP connect to lb after the hold-down");
        assertEquals(1, reporter.get(TipcShuffleCounter.HOSTS_LOST));
        IOException refused = assertThrows(IOException.class, () -> fetch(1));
        assertTrue(refused.getMessage().contains("TIPC lost every link"), refused.getMessage());
        Testbed.sh("ip -n lb link set lb0 up");
        long deadline = System.nanoTime() + AWAIT.toNanos();
        String next;
        do { // a report interval may pass before lb is back
            next = hosts.next(AWAIT);
        } while (("still lost " + host()).equals(next) && System.nanoTime() < deadline);
        assertEquals("released " + host(), next, "lb linked again and its name published");
        assertEquals(1, reporter.get(TipcShuffleCounter.HOSTS_BACK_AFTER_NODE_LOSS));
        assertEquals("TIPC", fetchOverTipcWithin(AWAIT, 1));
        assertEquals(0, reporter.get(TipcShuffleCounter.NODE_LOSS_LOCAL_FAULTS));
    }

    private void assertNothingReported() {
        List<String> rest = new ArrayList<>();
        hosts.lines.drainTo(rest);
        assertEquals(List.of(), rest);
        assertEquals(0, reporter.get(TipcShuffleCounter.HOSTS_LOST), "no map output reported");
        assertEquals(0, reporter.get(TipcShuffleCounter.NODE_LOSS_LOCAL_FAULTS));
    }

    private static String host() {
        return NodeLoss.key(MAP_HOST_IP, port);
    }

    /** Waits until la is linked to lb and lc and sees lb's shuffle name. */
    private static void awaitLinkedAndPublished() throws Exception {
        long deadline = System.nanoTime() + AWAIT.toNanos();
        while (Testbed.on("la", Tipc::reachableNodes).size() < 2) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("la is not linked to lb and lc within " + AWAIT);
            }
            Thread.sleep(100);
        }
        ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName(MAP_HOST_IP), port);
        Testbed.on("la", () -> Tipc.awaitPublished(name.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), AWAIT));
    }

    /** Fetches {@code map} until it comes over TIPC: the task's routes follow the name's publication a little later. */
    private String fetchOverTipcWithin(Duration timeout, int map) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String over;
        while (!(over = fetch(map)).equals("TIPC") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        return over;
    }

    /** Fetches map {@code map}'s partition from lb as a fetcher on la, checking its CRC; says which transport carried it. */
    private String fetch(int map) throws Exception {
        long tipcBefore = reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS);
        long tcpBefore = reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS);
        Testbed.on("la", () -> {
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(map));
            HttpURLConnection c = transports.open(new URL("http", MAP_HOST_IP, port, uri),
                    u -> (HttpURLConnection) u.openConnection(), outputs.key);
            ShuffleWire.sign(c, uri, port, outputs.key);
            try {
                c.connect();
                assertEquals(200, c.getResponseCode());
                try (DataInputStream in = new DataInputStream(c.getInputStream())) {
                    new ShuffleHeader().readFields(in);
                    byte[] data = new byte[PARTITION];
                    in.readFully(data);
                    CRC32C crc = new CRC32C();
                    crc.update(data);
                    assertEquals(outputs.crc(map, 0), crc.getValue(), "map " + map);
                }
            } finally {
                c.disconnect();
            }
            return null;
        });
        long tipc = reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS) - tipcBefore;
        long tcp = reporter.get(TipcShuffleCounter.TCP_MAP_OUTPUTS) - tcpBefore;
        assertEquals(1, tipc + tcp, "one map output counted");
        return tipc == 1 ? "TIPC" : "TCP";
    }
}
