package io.hadooptipc.shuffle;

import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TipcShuffleConfigTest {

    @Test
    void shippedDefaultsMatchTheCode() {
        Configuration shipped = new Configuration(false);
        shipped.addResource(TipcShuffleConfig.DEFAULT_RESOURCE);
        assertEquals(TipcShuffleConfig.DEFAULT_SERVER_ENABLED, shipped.getBoolean(TipcShuffleConfig.SERVER_ENABLED, false));
        assertEquals(TipcShuffleConfig.DEFAULT_SERVICE_TYPE, shipped.getInt(TipcShuffleConfig.SERVICE_TYPE, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_WRITE_TIMEOUT_MS, shipped.getInt(TipcShuffleConfig.WRITE_TIMEOUT_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, shipped.getInt(TipcShuffleConfig.GATHER_MAX_BYTES, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS, shipped.getInt(TipcShuffleConfig.MAX_OPEN_CONNECTIONS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS_PER_NODE,
                shipped.getInt(TipcShuffleConfig.MAX_OPEN_CONNECTIONS_PER_NODE, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_LINKS_ENCRYPTED,
                shipped.getBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, !TipcShuffleConfig.DEFAULT_LINKS_ENCRYPTED));
        assertEquals(TipcShuffleConfig.DEFAULT_TRANSPORT, TipcShuffleConfig.Transport.of(shipped));
        assertEquals(TipcShuffleConfig.DEFAULT_TCP_ABOVE_BYTES, shipped.getLong(TipcShuffleConfig.TCP_ABOVE_BYTES, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_FIRST_FETCHES, TipcShuffleConfig.FirstFetches.of(shipped));
        assertEquals(TipcShuffleConfig.DEFAULT_PROBE_WAIT_MS, shipped.getLong(TipcShuffleConfig.PROBE_WAIT_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_ISLAND_LEVEL, shipped.getInt(TipcShuffleConfig.ISLAND_LEVEL, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_TOPOLOGY_ENABLED,
                shipped.getBoolean(TipcShuffleConfig.TOPOLOGY_ENABLED, !TipcShuffleConfig.DEFAULT_TOPOLOGY_ENABLED));
        assertEquals(TipcShuffleConfig.DEFAULT_PROOF_SOCKET_TIMEOUT_MS,
                shipped.getLong(TipcShuffleConfig.PROOF_SOCKET_TIMEOUT_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_PROOF_TIMEOUT_MS,
                shipped.getLong(TipcShuffleConfig.PROOF_TIMEOUT_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_UNPROVEN_HOLD_MS,
                shipped.getLong(TipcShuffleConfig.UNPROVEN_HOLD_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_NODE_LOSS_ENABLED,
                shipped.getBoolean(TipcShuffleConfig.NODE_LOSS_ENABLED, !TipcShuffleConfig.DEFAULT_NODE_LOSS_ENABLED));
        assertEquals(TipcShuffleConfig.DEFAULT_NODE_LOSS_HOLD_DOWN_MS, shipped.getLong(TipcShuffleConfig.NODE_LOSS_HOLD_DOWN_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_NODE_LOSS_PROBE_TIMEOUT_MS,
                shipped.getInt(TipcShuffleConfig.NODE_LOSS_PROBE_TIMEOUT_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_REUSE_ENABLED,
                shipped.getBoolean(TipcShuffleConfig.REUSE_ENABLED, !TipcShuffleConfig.DEFAULT_REUSE_ENABLED));
        assertEquals(TipcShuffleConfig.DEFAULT_REUSE_MAX_IDLE_PER_HOST, shipped.getInt(TipcShuffleConfig.REUSE_MAX_IDLE_PER_HOST, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_REUSE_IDLE_TIMEOUT_MS, shipped.getInt(TipcShuffleConfig.REUSE_IDLE_TIMEOUT_MS, -1));
        assertEquals(TipcShuffleConfig.DEFAULT_CONNECT_AHEAD_ENABLED,
                shipped.getBoolean(TipcShuffleConfig.CONNECT_AHEAD_ENABLED, !TipcShuffleConfig.DEFAULT_CONNECT_AHEAD_ENABLED));
        int documented = 0;
        for (var entry : shipped) {
            assertTrue(entry.getKey().startsWith("mapreduce.shuffle.tipc."), entry.getKey());
            documented++;
        }
        assertEquals(23, documented, "every key in tipc-shuffle-default.xml is checked above");
    }

    @Test
    void badValuesGetClearErrors() {
        Configuration conf = new Configuration(false);
        conf.set(TipcShuffleConfig.TRANSPORT, "udp");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TipcShuffleConfig.Transport.of(conf));
        assertTrue(e.getMessage().contains("auto, tipc or tcp"), e.getMessage());
        conf.setInt(TipcShuffleConfig.SERVICE_TYPE, 1);
        assertThrows(IllegalArgumentException.class, () -> TipcShuffleConfig.serviceType(conf));
        conf.set(TipcShuffleConfig.TRANSPORT, " TIPC ");
        assertEquals(TipcShuffleConfig.Transport.TIPC, TipcShuffleConfig.Transport.of(conf));
        conf.set(TipcShuffleConfig.FIRST_FETCHES, "udp");
        e = assertThrows(IllegalArgumentException.class, () -> TipcShuffleConfig.FirstFetches.of(conf));
        assertTrue(e.getMessage().contains("mapreduce.shuffle.tipc.first-fetches must be tipc, tcp or probe, not 'udp'"),
                e.getMessage());
        conf.set(TipcShuffleConfig.FIRST_FETCHES, "TCP");
        assertEquals(TipcShuffleConfig.FirstFetches.TCP, TipcShuffleConfig.FirstFetches.of(conf));
    }

    @Test
    void encryptedShuffleGoesOverTipcInTlsUnlessTheLinksAreDeclaredEncryptedByTheKernel() {
        Configuration conf = new Configuration(false);
        assertEquals(Encryption.NONE, Encryption.of(conf));
        conf.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, true);
        assertEquals(Encryption.NONE, Encryption.of(conf), "no encrypted shuffle required: the declaration changes nothing");
        conf.setBoolean("mapreduce.shuffle.ssl.enabled", true);
        assertEquals(Encryption.KERNEL, Encryption.of(conf));
        conf.setBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, false);
        assertEquals(Encryption.TLS, Encryption.of(conf));
        assertNull(TipcShuffleConfig.whyNotServed(conf), "served over TIPC, in TLS");
        conf.setBoolean(TipcShuffleConfig.SERVER_ENABLED, false);
        assertTrue(TipcShuffleConfig.whyNotServed(conf).contains(TipcShuffleConfig.SERVER_ENABLED));
    }
}
