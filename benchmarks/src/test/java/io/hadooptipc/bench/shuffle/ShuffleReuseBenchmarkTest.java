package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hadooptipc.bench.shuffle.ShuffleReuseBenchmark.Problem;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.harness.ShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Measured;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Side;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.mapreduce.Counters;
import org.junit.jupiter.api.Test;

class ShuffleReuseBenchmarkTest {
    static final Spec STAGGERED = new Spec(ShuffleJob.SHUFFLE_HEAVY, 7, 3, 200, 1500);

    @Test
    void theReuseOffSideTurnsReuseOffAndNothingElse() {
        assertEquals(Map.of(TipcShuffleConfig.REUSE_ENABLED, "false"), Side.OURS_REUSE_OFF.settings);
        assertEquals(Map.of(), Side.OURS.settings);
    }

    @Test
    void parsesAStaggeredJob() {
        assertEquals(STAGGERED, JobArgs.spec("shuffle-heavy:7:3:200:1500"));
        assertEquals("shuffle-heavy-7x3-staggered", STAGGERED.name());
    }

    @Test
    void countsARequestPerStreamOpenedAndPerReuse() {
        assertEquals(21, ShuffleReuseBenchmark.requests(run(Side.OURS, 3, 18, 0, 1)));
    }

    @Test
    void aPairThatReusedOnOneSideOnlyOverTipcHasNoProblem() {
        assertEquals(List.of(), ShuffleReuseBenchmark.problems(
                List.of(run(Side.OURS, 3, 18, 0, 1), run(Side.OURS_REUSE_OFF, 21, 0, 0, 1)), true));
    }

    @Test
    void failsWhenReuseOnReusedNothingOrReuseOffReused() {
        assertEquals(List.of(3, 3), exits(ShuffleReuseBenchmark.problems(
                List.of(run(Side.OURS, 21, 0, 0, 1), run(Side.OURS_REUSE_OFF, 20, 1, 0, 1)), true)));
    }

    @Test
    void failsOnBytesOverTcpBeforeAskingAboutReuse() {
        assertEquals(List.of(2, 2, 3), exits(ShuffleReuseBenchmark.problems(
                List.of(run(Side.OURS, 0, 0, 4096, 1), run(Side.OURS_REUSE_OFF, 20, 0, 100, 1)), true)));
    }

    @Test
    void failsOnAnUnpairedRunAndOnlyOnOutputsWithoutTipc() {
        List<Measured> runs = List.of(run(Side.OURS, 0, 0, 4096, 1), run(Side.OURS_REUSE_OFF, 0, 0, 4096, 1),
                run(Side.OURS, 0, 0, 4096, 2));
        assertEquals(List.of(1), exits(ShuffleReuseBenchmark.problems(runs, false)));
    }

    private static List<Integer> exits(List<Problem> problems) {
        return problems.stream().map(Problem::exit).toList();
    }

    private static Measured run(Side side, long opened, long reused, long tcpBytes, int round) {
        Counters counters = new Counters();
        counters.findCounter(TipcShuffleCounter.STREAMS_OPENED).setValue(opened);
        counters.findCounter(TipcShuffleCounter.STREAMS_REUSED).setValue(reused);
        counters.findCounter(TipcShuffleCounter.TCP_BYTES).setValue(tcpBytes);
        return new Measured(STAGGERED, side, round, new ShuffleCluster.Result(null, Map.of(), counters), true, 0,
                List.of(), 0, -1, new long[0]);
    }
}
