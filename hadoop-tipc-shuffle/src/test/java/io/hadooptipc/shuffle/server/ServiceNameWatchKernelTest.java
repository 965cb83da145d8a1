package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.NameBindings;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcScope;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcServiceRange;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handler in n1 watches its own names while it serves: a socket in n2 that binds one is
 * counted until it leaves, and a name taken before the handler started is published once free.
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
            } finally {
                impostor.close();
            }
            awaitValue(0, () -> handler.tipcMetrics().nameOtherHolders(), "the other holder gone");
        } finally {
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    @Test
    void aNameTakenBeforeTheHandlerStartsIsPublishedOnceFree() throws Exception {
        // Any instance of the type: whatever port the handler gets, n1's address's name is taken.
        TipcServerSocketChannel squatter = Testbed.on("n2", () -> TipcServerSocketChannel.open()
                .bind(TipcServiceRange.all(TYPE), TipcScope.CLUSTER));
        TipcShuffleHandler handler = null;
        try {
            handler = new MapOutputFixture(local, 1, 1, 1024).serveIn("n1", TipcShuffleHandler::new,
                    new YarnConfiguration());
            TipcServiceAddress service = nameOfN1(handler).tipcAddress(TYPE);
            TipcShuffleHandler started = handler;
            awaitValue(1, () -> started.tipcMetrics().nameOtherHolders(), "the squatter counted");
            int n1 = n1Node();
            assertFalse(Testbed.on("n2", () -> NameBindings.boundBy(service, n1, Duration.ofSeconds(1))),
                    "n1 does not publish a name someone holds");
            squatter.close();
            awaitValue(0, () -> started.tipcMetrics().nameOtherHolders(), "the squatter gone");
            assertTrue(Testbed.on("n2", () -> NameBindings.boundBy(service, n1, Duration.ofSeconds(20))),
                    "n1 publishes its name once it is free");
        } finally {
            squatter.close();
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    private static ShuffleServiceName nameOfN1(ShuffleHandler handler) throws Exception {
        int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        return ShuffleServiceName.of(InetAddress.getByName(TestbedNetwork.node(1)), port);
    }

    private static int n1Node() throws Exception {
        return Testbed.on("n1", Tipc::ownNodeAddress);
    }

    private static void awaitValue(int expected, IntSupplier value, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (value.getAsInt() != expected) {
            assertFalse(System.nanoTime() > deadline, what + ": " + value.getAsInt() + " after 20 s, not " + expected);
            Thread.sleep(50);
        }
    }
}
