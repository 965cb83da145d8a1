package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.NameBindings;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A process in n3 without the job token binds the handler's name before the handler starts
 * (testbed/tipc-shuffle-impostor.py, answering every request with a 200 of bytes that are no map output):
 * the handler in n1 publishes its name beside it and counts it, and a reducer in n2 takes every map output
 * over TIPC from the handler, walking past the squatter on the connections the kernel hands it. Once for
 * the name itself, once for every instance of the service type, the range the kernel's lookup tries first.
 */
@Tag("tipc-kernel")
class SquatBeforeStartKernelTest {
    static final int TYPE = TipcShuffleConfig.DEFAULT_SERVICE_TYPE;
    static final int MAPS = 2;
    static final int PARTITION = 64 << 10;
    static final String SERVER_IP = TestbedNetwork.node(1);
    static final Path SCRIPT = Path.of("..", "testbed", "tipc-shuffle-impostor.py");
    /** Fetches, each on a connection of its own, within which the squatter must have been handed some. */
    static final int MAX_FETCHES = 12;
    /** Connections the squatter must have been handed: it shares the name, so the kernel hands it one in two. */
    static final int SQUATTER_CONNECTIONS = 2;

    @TempDir
    Path local;

    @BeforeAll
    static void threeNodes() {
        assumeTrue(Testbed.nodeCount() >= 3, "needs tipc-vm --nodes 3");
    }

    @Test
    void theNameBoundBeforeStartIsPublishedBesideTheSquatterAndServed() throws Exception {
        publishesBesideASquatterAndServes(instance -> Integer.toUnsignedString(instance));
    }

    @Test
    void everyInstanceBoundBeforeStartLeavesTheNamePublishedAndServed() throws Exception {
        publishesBesideASquatterAndServes(instance -> "0.." + Integer.toUnsignedString(-1));
    }

    /** {@code squatted} gives the instances the squatter binds from the instance of the handler's name. */
    private void publishesBesideASquatterAndServes(IntFunction<String> squatted) throws Exception {
        int port = Testbed.on("n1", () -> {
            try (ServerSocket free = new ServerSocket(0)) {
                return free.getLocalPort();
            }
        });
        ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
        TipcServiceAddress service = name.tipcAddress(TYPE);
        Process squatter = squat(squatted.apply(name.instance()));
        MapOutputFixture outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        TipcShuffleHandler handler = null;
        try {
            YarnConfiguration conf = new YarnConfiguration();
            conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
            handler = Testbed.on("n1", () -> outputs.serve(new TipcShuffleHandler(), conf, port));
            assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
            int n1 = Testbed.on("n1", Tipc::ownNodeAddress);
            assertTrue(Testbed.on("n2", () -> NameBindings.boundBy(service, n1, Duration.ofSeconds(20))),
                    "n1 publishes " + service + " beside the squatter, as n2 sees the name table");
            TipcShuffleHandler started = handler;
            awaitSquatterCounted(() -> started.tipcMetrics().nameOtherHolders());

            int skipped = 0;
            for (int fetch = 0; fetch < MAX_FETCHES && skipped < SQUATTER_CONNECTIONS; fetch++) {
                CountingReporter reporter = new CountingReporter();
                Testbed.on("n2", () -> fetchAndVerify(outputs, port, reporter));
                assertEquals(MAPS, reporter.get(TipcShuffleCounter.TIPC_MAP_OUTPUTS), "fetch " + fetch
                        + ": every map output over TIPC from the handler");
                for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
                    if (c.isFallback()) {
                        assertEquals(0, reporter.get(c), "fetch " + fetch + ": " + c.name());
                    }
                }
                skipped += (int) reporter.get(TipcShuffleCounter.UNAUTHENTICATED_SKIPPED);
            }
            assertEquals(SQUATTER_CONNECTIONS, skipped, "fetches the squatter was handed and walked past, within "
                    + MAX_FETCHES);
        } finally {
            squatter.destroy();
            squatter.waitFor();
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    /** Starts the squatter in n3 and waits until it has bound {@code instances} of the service type. */
    private static Process squat(String instances) throws Exception {
        Process p = Testbed.exec("n3", Testbed.python(), SCRIPT.toString(), "garbage", Integer.toString(TYPE),
                instances);
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (!"ready".equals(line)) {
            p.destroy();
            throw new AssertionError("the squatter did not start: " + line);
        }
        return p;
    }

    private static void awaitSquatterCounted(IntSupplier otherHolders) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (otherHolders.getAsInt() != 1) {
            assertFalse(System.nanoTime() > deadline, "other holders counted: " + otherHolders.getAsInt() + ", not 1");
            Thread.sleep(50);
        }
    }

    /** One fetch of every map's partition from n2, on connections and routes of its own, checking each CRC. */
    private static Void fetchAndVerify(MapOutputFixture outputs, int port, CountingReporter reporter)
            throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
        TransferCounters counters = new TransferCounters(reporter);
        TransportRoutes routes = new TransportRoutes(Transport.AUTO, Tipc.availability(), counters);
        try (StreamPool streams = ReducerConnections.streams(counters, false)) {
            TipcShuffleConnection c = ReducerConnections.connection(SERVER_IP, port, uri, outputs.key, routes,
                    streams, counters);
            try {
                assertEquals(200, c.getResponseCode());
                try (DataInputStream in = new DataInputStream(c.getInputStream())) {
                    for (int m = 0; m < MAPS; m++) {
                        ShuffleHeader header = new ShuffleHeader();
                        header.readFields(in);
                        CRC32C crc = new CRC32C();
                        crc.update(in.readNBytes(PARTITION));
                        assertEquals(outputs.crc(m, 0), crc.getValue(), "map " + m);
                    }
                    assertEquals(-1, in.read(), "nothing after the last map output");
                }
            } finally {
                c.disconnect();
            }
        }
        return null;
    }
}
