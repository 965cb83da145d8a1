package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * TipcShuffleConsumer runs the stock shuffle's loop ({@code init}, {@code run},
 * {@code reportException}) with the stock plugin's private constants, because {@code Shuffle}
 * creates its fetchers inside {@code run}. This runs against 3.5 and 3.4: a Hadoop release that
 * changes what was copied fails here, not in production.
 */
class StockShuffleCopyTest {
    private static final String INIT = "init(Lorg/apache/hadoop/mapred/ShuffleConsumerPlugin$Context;)V";
    private static final String RUN = "run()Lorg/apache/hadoop/mapred/RawKeyValueIterator;";
    private static final String REPORT = "reportException(Ljava/lang/Throwable;)V";

    /** The instructions of the methods copied, as read for each Hadoop release the copy follows. */
    private static final Map<String, Map<String, String>> READ = Map.of(
            "3.4.2", Map.of(
                    INIT, "907af166fe802180b85a4e034044fac1f3639e55bfc1ec0d65a1c2be4a8582ad",
                    RUN, "63a28701b64797b3313dff034660565a4b9159c7b46b0f9e01c6024d55e47475",
                    REPORT, "d3d15fa0228c8129e08b5107b4e532b2e08855db119576ca75795c60ae2f4f72"),
            "3.4.3", Map.of(
                    INIT, "907af166fe802180b85a4e034044fac1f3639e55bfc1ec0d65a1c2be4a8582ad",
                    RUN, "63a28701b64797b3313dff034660565a4b9159c7b46b0f9e01c6024d55e47475",
                    REPORT, "d3d15fa0228c8129e08b5107b4e532b2e08855db119576ca75795c60ae2f4f72"),
            "3.5.0", Map.of(
                    INIT, "8b7f8eba2ca3704c99a9cce6bb3718d4e2755d1dbf5841d8b21990665fd477f3",
                    RUN, "705e4d8c6554125a5970cc226e2c902cfd6d7dd72721cb45e578047ce0c558e2",
                    REPORT, "4202c7f6f48474ecd97d06024f8f0f38aee2a8a22efe664a090af223f2a7ef74"));

    @Test
    void ourCopiesEqualTheStockShufflesConstants() throws Exception {
        assertEquals(stock("PROGRESS_FREQUENCY"), TipcShuffleConsumer.PROGRESS_FREQUENCY_MS);
        assertEquals(stock("MIN_EVENTS_TO_FETCH"), TipcShuffleConsumer.MIN_EVENTS_TO_FETCH);
        assertEquals(stock("MAX_EVENTS_TO_FETCH"), TipcShuffleConsumer.MAX_EVENTS_TO_FETCH);
        assertEquals(stock("MAX_RPC_OUTSTANDING_EVENTS"), TipcShuffleConsumer.MAX_RPC_OUTSTANDING_EVENTS);
    }

    @Test
    void theStockLoopIsTheOneTheCopyWasReadFrom() throws Exception {
        String version = VersionInfo.getVersion();
        Map<String, String> actual = MethodBytecode.fingerprints(Shuffle.class);
        Map<String, String> read = READ.get(version);
        if (read == null) {
            fail("Hadoop " + version + " is not a release TipcShuffleConsumer's copy of Shuffle was read from "
                    + READ.keySet() + ": compare its Shuffle.init, run and reportException with the copy, then add "
                    + "their fingerprints here: " + Map.of(INIT, actual.get(INIT), RUN, actual.get(RUN),
                    REPORT, actual.get(REPORT)));
        }
        read.forEach((method, fingerprint) -> assertEquals(fingerprint, actual.get(method), "Shuffle." + method
                + " in Hadoop " + version + " is not the code TipcShuffleConsumer copies: update the copy from it"));
    }

    private static int stock(String name) throws ReflectiveOperationException {
        Field field = Shuffle.class.getDeclaredField(name);
        field.setAccessible(true);
        return field.getInt(null);
    }
}
