package io.hadooptipc.bench.shuffle;

import io.hadooptipc.bench.shuffle.EncryptedShuffleBenchmark.Mode;
import io.hadooptipc.bench.shuffle.EncryptedShuffleBenchmark.Row;
import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import io.hadooptipc.shuffle.harness.FetchCost;
import org.apache.hadoop.mapreduce.MRConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EncryptedShuffleBenchmarkTest {
    @TempDir
    Path out;

    @Test
    void aRatioIsTheMedianOfEachRoundsRatioNotTheRatioOfMedians() {
        // Round 3 is slow for both: per round the encrypted links take 3x, 2x, 1.1x; the medians' ratio is 3.
        List<Row> rows = List.of(row(1, Mode.TIPC, 100), row(1, Mode.TIPC_AEAD, 300),
                row(2, Mode.TIPC, 100), row(2, Mode.TIPC_AEAD, 200),
                row(3, Mode.TIPC, 1000), row(3, Mode.TIPC_AEAD, 1100));
        assertEquals(2.0, EncryptedShuffleBenchmark.ratio(rows, 4096, Mode.TIPC_AEAD, Mode.TIPC, Row::wallMicros), 1e-9);
    }

    @Test
    void eachModeConfiguresTheReducerAsAnOperatorWould() {
        assertFalse(Mode.HTTP.job().getBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true));
        assertTrue(Mode.HTTPS.job().getBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, false));
        assertEquals(Encryption.KERNEL, Encryption.of(Mode.TIPC_AEAD.job()), "encrypted links carry the encrypted shuffle");
        assertEquals(Encryption.KERNEL, Encryption.of(Mode.TIPC_AEAD.server.conf()));
        assertTrue(Mode.TLS_TIPC.job().getBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, false));
        assertEquals(Encryption.TLS, Encryption.of(Mode.TLS_TIPC.job()), "TLS, not the kernel, encrypts");
        assertEquals(Encryption.TLS, Encryption.of(Mode.TLS_TIPC.server.conf()));
        assertEquals(Boolean.TRUE, Mode.TIPC_AEAD.keyed());
        assertEquals(Boolean.FALSE, Mode.TIPC.keyed());
        assertEquals(Boolean.FALSE, Mode.TLS_TIPC.keyed());
        assertNull(Mode.HTTPS.keyed(), "TCP does not care about TIPC's key");
    }

    @Test
    void withoutTlsOverTipcTheSummarySaysSoAndComparesTheRest() throws Exception {
        List<Mode> modes = List.of(Mode.HTTP, Mode.HTTPS, Mode.TIPC, Mode.TIPC_AEAD);
        List<Row> rows = modes.stream().map(m -> row(1, m, 100 + m.ordinal())).toList();

        EncryptedShuffleBenchmark.report(out, rows, 1, List.of("4096:3"), modes);

        String summary = Files.readString(out.resolve("summary.md"));
        assertTrue(summary.contains(EncryptedShuffleBenchmark.TLS_UNAVAILABLE), summary);
        assertFalse(summary.contains("| TLS over TIPC |"), summary);
        assertTrue(summary.contains("| TIPC, encrypted links | 1.01 |"), summary);
        assertTrue(Files.exists(out.resolve("wall.png")) && Files.exists(out.resolve("cpu.png")));
        assertEquals(1 + rows.size(), Files.readAllLines(out.resolve("results.csv")).size());
    }

    private static Row row(int round, Mode mode, long wallMicros) {
        return new Row(4096, round, mode, new FetchCost.Measured(1, wallMicros * 1000, 1000, 1, 0,
                mode.ours ? 1 : 0, 0), 1000, 2000);
    }
}
