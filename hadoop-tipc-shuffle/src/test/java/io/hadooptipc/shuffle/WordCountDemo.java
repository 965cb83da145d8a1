package io.hadooptipc.shuffle;

import io.hadooptipc.shuffle.client.TipcShuffleConsumer;
import io.hadooptipc.shuffle.client.TipcShuffleCounter;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The project's main job (bin/run): a word count on a MiniMRYarnCluster whose
 * NodeManager runs TipcShuffleHandler, once with TipcShuffleConsumer and once with the
 * stock shuffle, printing the TIPC Shuffle counters and whether the outputs are
 * byte-identical. Arguments: maps reduces lines-per-map. Exits 1 if the outputs differ,
 * 2 if TIPC was available yet bytes went over TCP.
 */
public final class WordCountDemo {
    // C1 only: under emulation the C2 compiler costs task JVMs more than it returns.
    static final Map<String, String> TASK_JVMS = Map.of(
            "mapreduce.map.java.opts", "-Xmx256m -XX:TieredStopAtLevel=1",
            "mapreduce.reduce.java.opts", "-Xmx256m -XX:TieredStopAtLevel=1",
            "yarn.app.mapreduce.am.command-opts", "-Xmx400m -XX:TieredStopAtLevel=1");

    /** Both runs of one word count, and the counts computed from the input directly. */
    record Comparison(MiniShuffleCluster.Result tipc, MiniShuffleCluster.Result stock, Map<String, Integer> counts) {
        boolean identical() {
            return tipc.parts().keySet().equals(stock.parts().keySet()) && tipc.parts().entrySet().stream()
                    .allMatch(e -> Arrays.equals(e.getValue(), stock.parts().get(e.getKey())));
        }
    }

    static Comparison run(Path work, int maps, int reduces, int lines) throws Exception {
        Map<String, Integer> counts = MiniShuffleCluster.writeInput(work.resolve("in"), maps, lines);
        try (MiniShuffleCluster cluster = MiniShuffleCluster.start("wordcount", TipcShuffleHandler.class, 1)) {
            MiniShuffleCluster.Result tipc = cluster.wordCount(work.resolve("in"), work.resolve("out-tipc"),
                    TipcShuffleConsumer.class, reduces, TASK_JVMS);
            MiniShuffleCluster.Result stock = cluster.wordCount(work.resolve("in"), work.resolve("out-stock"),
                    Shuffle.class, reduces, TASK_JVMS);
            return new Comparison(tipc, stock, counts);
        }
    }

    public static void main(String[] args) throws Exception {
        int maps = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int reduces = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int lines = args.length > 2 ? Integer.parseInt(args[2]) : 3000;
        boolean tipcAvailable = Tipc.availability().isAvailable();
        System.out.println("TIPC on this node: " + Tipc.availability());
        Comparison c = run(Files.createTempDirectory("wordcount"), maps, reduces, lines);
        Counters counters = c.tipc().counters();
        System.out.printf("%nword count, %d maps x %d reduces, %d distinct words%n", maps, reduces, c.counts().size());
        System.out.printf("%-28s %14d%n", "REDUCE_SHUFFLE_BYTES", counters.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue());
        for (TipcShuffleCounter counter : TipcShuffleCounter.values()) {
            System.out.printf("%-28s %14d%n", counter, counters.findCounter(counter).getValue());
        }
        boolean allTipc = counters.findCounter(TipcShuffleCounter.TCP_BYTES).getValue() == 0
                && counters.findCounter(TipcShuffleCounter.TIPC_BYTES).getValue()
                == counters.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
        System.out.println("every shuffled byte via TIPC: " + (allTipc ? "yes" : "no"));
        System.out.println("output identical to the stock shuffle's: " + (c.identical() ? "yes" : "NO"));
        System.exit(!c.identical() ? 1 : tipcAvailable && !allTipc ? 2 : 0);
    }

    private WordCountDemo() {
    }
}
