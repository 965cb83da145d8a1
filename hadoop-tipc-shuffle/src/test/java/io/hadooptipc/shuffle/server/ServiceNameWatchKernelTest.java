package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.TipcScope;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handler in n1 watches its own names while it serves: a socket in n2 that binds one is
 * counted until it leaves (SquatBeforeStartKernelTest: one bound before the handler starts).
 */
@Tag("tipc-kernel")
class ServiceNameWatchKernelTest {
    static final int TYPE = TipcShuffleConfig.DEFAULT_SERVICE_TYPE;

    @TempDir
    Path local;

    @Test
    void anotherSocketBindingTheNameIsCountedUntilItLeaves() throws Exception {
        TipcShuffleHandler handler = new MapOutputFixture(local, 1, 1, 1024)
                .serveIn("n1", TipcShuffleHandler::new, new YarnConfiguration());
        try {
            assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
            TipcServiceAddress service = nameOfN1(handler).tipcAddress(TYPE);
            TipcServerSocketChannel impostor = Testbed.on("n2", () -> TipcServerSocketChannel.open()
                    .bind(service, TipcScope.CLUSTER));
            try {
                awaitValue(1, () -> handler.tipcMetrics().nameOtherHolders(), "the other holder counted");
                assertEquals(1, handler.tipcMetrics().nameOtherHoldersSeen(), "and counted among those seen");
            } finally {
                impostor.close();
            }
            awaitValue(0, () -> handler.tipcMetrics().nameOtherHolders(), "the other holder gone");
        } finally {
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    private static ShuffleServiceName nameOfN1(ShuffleHandler handler) throws Exception {
        int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        return ShuffleServiceName.of(InetAddress.getByName(TestbedNetwork.node(1)), port);
    }

    private static void awaitValue(int expected, IntSupplier value, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (value.getAsInt() != expected) {
            assertFalse(System.nanoTime() > deadline, what + ": " + value.getAsInt() + " after 20 s, not " + expected);
            Thread.sleep(50);
        }
    }
}
