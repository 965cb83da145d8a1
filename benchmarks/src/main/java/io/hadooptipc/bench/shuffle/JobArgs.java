package io.hadooptipc.bench.shuffle;

import io.hadooptipc.shuffle.harness.MiniShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleCluster;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import io.hadooptipc.shuffle.harness.TestbedCluster;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;

import java.util.List;
import java.util.Optional;

/**
 * The command line of the benchmarks that run MapReduce jobs, {@code CLUSTER OUT ROUNDS SPEC...}: the cluster to run
 * them on and the jobs.
 */
final class JobArgs {
    private static final String WARM_UP = "warm-up=";

    /**
     * The host's MiniCluster ({@code mini}, {@code mini-hdfs}) or the testbed's cluster ({@code testbed}), where a job runs at most
     * {@code tasksAtOnce} maps and as many reducers at a time (0: no limit).
     */
    static ShuffleCluster cluster(String kind, int tasksAtOnce) throws Exception {
        return switch (kind) {
            case "mini" -> MiniShuffleCluster.start("shuffle", TipcShuffleHandler.class, 1);
            case "mini-hdfs" -> MiniShuffleCluster.startOnHdfs("shuffle", TipcShuffleHandler.class, 1);
            case "testbed" -> TestbedCluster.connect(tasksAtOnce);
            default -> throw new IllegalArgumentException("CLUSTER is mini, mini-hdfs or testbed, not " + kind);
        };
    }

    /** The jobs to compare among the command line's {@code SPEC}s, the warm-up left out. */
    static List<Spec> specs(List<String> specArgs) {
        return specArgs.stream().filter(a -> !a.startsWith(WARM_UP)).map(JobArgs::spec).toList();
    }

    /** The command line's warm-up job, {@code warm-up=SPEC}, if it has one. */
    static Optional<Spec> warmUp(List<String> specArgs) {
        return specArgs.stream().filter(a -> a.startsWith(WARM_UP)).map(a -> spec(a.substring(WARM_UP.length()))).findFirst();
    }

    /** {@code job:maps:reduces:records}, or {@code job:maps:reduces:records:stagger-ms} for maps that finish over time. */
    static Spec spec(String text) {
        String[] f = text.split(":");
        if (f.length != 4 && f.length != 5) {
            throw new IllegalArgumentException("a job is job:maps:reduces:records[:stagger-ms], not " + text);
        }
        return new Spec(ShuffleJob.of(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                f.length == 5 ? Integer.parseInt(f[4]) : 0);
    }

    private JobArgs() {
    }
}
