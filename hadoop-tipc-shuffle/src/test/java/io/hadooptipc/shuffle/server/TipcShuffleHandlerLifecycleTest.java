package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TlsMaterial;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TIPC trouble, of any kind and at any time, never costs the NodeManager its stock shuffle. */
class TipcShuffleHandlerLifecycleTest {

    @BeforeAll
    static void metricsSourcesMayRepeat() {
        DefaultMetricsSystem.setMiniClusterMode(true); // each handler registers the stock ShuffleMetrics again
    }

    @Test
    void anyFailureStartingTipcLeavesHttpServing() throws Exception {
        for (Throwable failure : new Throwable[] {new IOException("bind failed"),
                new IllegalStateException("selector broken"), new UnsatisfiedLinkError("no tipc-jni native library")}) {
            TipcShuffleHandler handler = new TipcShuffleHandler() {
                @Override
                Closeable startTipc(Configuration conf) throws IOException {
                    if (failure instanceof IOException) {
                        IOException e = (IOException) failure;
                        throw e;
                    }
                    if (failure instanceof RuntimeException) {
                        RuntimeException e = (RuntimeException) failure;
                        throw e;
                    }
                    throw (Error) failure;
                }
            };
            handler.init(conf());
            handler.start();
            try {
                assertFalse(handler.isServingTipc(), failure.toString());
                assertTrue(accepts(port(handler)), "HTTP/TCP serves after " + failure);
            } finally {
                handler.stop();
            }
        }
    }

    @Test
    void linksDeclaredEncryptedOnAKernelWithoutTipcEncryptionServeNothingOverTipcAndSaySo() throws Exception {
        // This host's kernel has no TIPC at all, so no TIPC encryption: the real kernel, read as on any node.
        assertNotNull(KernelLinkCrypto.whyNotEncrypted(
                KernelLinkCrypto.KALLSYMS), "the host kernel cannot encrypt TIPC");
        Configuration conf = conf();
        TlsMaterial.loopback().serverConf(conf, TlsMaterial.loopback().server);
        conf.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, true);
        TipcShuffleHandler handler = new TipcShuffleHandler();
        handler.init(conf);
        handler.start();
        try {
            assertFalse(handler.isServingTipc());
            assertEquals(1, handler.tipcMetrics().notServedUnencrypted(), "the metric says why");
            assertTrue(accepts(port(handler)), "stock HTTPS serves");
        } finally {
            handler.stop();
        }
        Configuration tls = conf();
        TlsMaterial.loopback().serverConf(tls, TlsMaterial.loopback().server);
        TipcShuffleHandler overTls = new TipcShuffleHandler();
        overTls.init(tls);
        overTls.start();
        try {
            assertEquals(0, overTls.tipcMetrics().notServedUnencrypted(), "TLS over TIPC needs no kernel encryption");
        } finally {
            overTls.stop();
        }
    }

    @Test
    void startingTheHandlerLeavesTheOperatorsSiteFilesInCharge() throws Exception {
        TipcShuffleHandler handler = new TipcShuffleHandler();
        handler.init(conf());
        handler.start();
        handler.stop();
        // Our defaults as a default resource would come after yarn-site.xml and override what it sets.
        assertNull(new Configuration().get(TipcShuffleConfig.SERVER_ENABLED),
                "a key of ours defined by a default resource");
    }

    @Test
    void stopUnregistersTheMetricsAndStopsTheStockHandlerEvenWhenClosingTipcFails() throws Exception {
        TipcShuffleHandler handler = new TipcShuffleHandler() {
            @Override
            Closeable startTipc(Configuration conf) {
                return () -> {
                    throw new IOException("close failed");
                };
            }
        };
        handler.init(conf());
        handler.start();
        int port = port(handler);
        assertTrue(handler.isServingTipc());
        assertNotNull(DefaultMetricsSystem.instance().getSource(TipcShuffleMetrics.NAME));
        try {
            handler.stop();
        } catch (RuntimeException reported) {
            // how it is reported is the service framework's business; what is left running is ours
        }
        assertNull(DefaultMetricsSystem.instance().getSource(TipcShuffleMetrics.NAME), "metrics source unregistered");
        assertFalse(accepts(port), "the stock handler stopped");
        assertFalse(handler.isServingTipc());
    }

    private static Configuration conf() {
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
        return conf;
    }

    private static int port(TipcShuffleHandler handler) throws IOException {
        return ShuffleHandler.deserializeMetaData(handler.getMetaData());
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
