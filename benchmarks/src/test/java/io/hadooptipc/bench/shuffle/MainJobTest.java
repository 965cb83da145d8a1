package io.hadooptipc.bench.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.harness.ShuffleComparison.Spec;
import io.hadooptipc.shuffle.harness.ShuffleJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringTokenizer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.lib.partition.HashPartitioner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/run's main job ({@code benchmarks/shuffle --main}) shows what the TIPC shuffle is for: every partition far below
 * {@code mapreduce.shuffle.tipc.tcp.above-bytes}, in the seed paper's regime (8 KB and less), several map outputs to
 * each reducer, and no more task JVMs than before. Partition sizes are computed from each job's input as the map side
 * writes them (IFile records after the combiner, end-of-file marker and checksum: the length a map output's index
 * gives and ours compares), which is what the host's MiniCluster counted (MAP_OUTPUT_MATERIALIZED_BYTES).
 */
class MainJobTest {
    /** The main job's task JVMs a side (maps and reducers of both jobs) when its first run was timed: 1+1 and 2+2. */
    private static final int TASK_JVMS_BEFORE = 6;

    @TempDir
    Path tmp;

    @Test
    void everyPartitionOfTheMainJobIsInTipcsRegime() throws IOException {
        List<Spec> specs = mainJobSpecs();
        assertEquals(List.of(ShuffleJob.WORDCOUNT, ShuffleJob.SHUFFLE_HEAVY), specs.stream().map(Spec::job).toList(),
                "the main job keeps the word count beside the shuffle-heavy job");
        for (Spec spec : specs) {
            long[] partitions = partitionBytes(spec);
            long largest = Arrays.stream(partitions).max().orElseThrow();
            assertTrue(largest <= 8 * 1024, spec.name() + ": a partition of " + largest + " bytes, above the seed's 8 KB");
            assertTrue(largest < TipcShuffleConfig.DEFAULT_TCP_ABOVE_BYTES, spec.name() + ": ours would send it over HTTP/TCP");
            assertTrue(spec.maps() >= 2, spec.name() + ": a reducer fetches several map outputs");
        }
        assertTrue(specs.stream().mapToInt(s -> s.maps() + s.reduces()).sum() <= TASK_JVMS_BEFORE,
                "every task JVM costs tens of seconds under emulation");
    }

    @Test
    void partitionSizesAreWhatTheMiniClusterCounted() throws IOException {
        // MAP_OUTPUT_MATERIALIZED_BYTES of the host's MiniCluster (ShuffleBenchmark mini), every map summed.
        assertEquals(275_709, Arrays.stream(partitionBytes(JobArgs.spec("wordcount:1:1:6000"))).sum());
        assertEquals(16_904, Arrays.stream(partitionBytes(JobArgs.spec("shuffle-heavy:2:2:150"))).sum());
        assertEquals(14_013, Arrays.stream(partitionBytes(JobArgs.spec("wordcount:2:1:80"))).sum());
        assertEquals(13_472, Arrays.stream(partitionBytes(JobArgs.spec("shuffle-heavy:2:1:120"))).sum());
    }

    /** The {@code --main} jobs in benchmarks/shuffle. */
    private static List<Spec> mainJobSpecs() throws IOException {
        Path script = Path.of("").toAbsolutePath();
        while (!Files.isRegularFile(script.resolve("benchmarks/shuffle"))) {
            script = script.getParent();
        }
        Matcher main = Pattern.compile("(?m)^--main\\) jobs=\"([^\"]*)\"").matcher(Files.readString(script.resolve("benchmarks/shuffle")));
        assertTrue(main.find(), "benchmarks/shuffle has a --main case");
        return JobArgs.specs(List.of(main.group(1).split(" ")));
    }

    /** Each partition's bytes as the maps write them: map by map, reducer by reducer. */
    private long[] partitionBytes(Spec spec) throws IOException {
        Path input = Files.createTempDirectory(tmp, "input");
        spec.job().writeInput(input, spec.maps(), spec.records());
        HashPartitioner<Text, Object> partitioner = new HashPartitioner<>();
        long[] bytes = new long[spec.maps() * spec.reduces()];
        for (int map = 0; map < spec.maps(); map++) {
            List<Map<Text, Long>> records = new ArrayList<>();
            for (int r = 0; r < spec.reduces(); r++) {
                records.add(new HashMap<>());
            }
            for (String line : Files.readAllLines(input.resolve("part" + map + ".txt"))) {
                if (spec.job() == ShuffleJob.WORDCOUNT) {
                    // TokenCounterMapper, then the combiner: one record (word, IntWritable) per word of the map.
                    for (StringTokenizer words = new StringTokenizer(line); words.hasMoreTokens(); ) {
                        Text word = new Text(words.nextToken());
                        records.get(partitioner.getPartition(word, null, spec.reduces())).put(word, 4L);
                    }
                } else {
                    // KeyValueTextInputFormat and the identity mapper: (Text key, Text value) split at the tab.
                    String[] kv = line.split("\t", 2);
                    Text key = new Text(kv[0]);
                    records.get(partitioner.getPartition(key, null, spec.reduces())).put(key, serialized(new Text(kv[1])));
                }
            }
            for (int r = 0; r < spec.reduces(); r++) {
                long segment = 2 + 4; // IFile's end-of-file marker (two vint -1) and its CRC32 checksum
                for (Map.Entry<Text, Long> record : records.get(r).entrySet()) {
                    long key = serialized(record.getKey());
                    segment += WritableUtils.getVIntSize(key) + WritableUtils.getVIntSize(record.getValue()) + key + record.getValue();
                }
                bytes[map * spec.reduces() + r] = segment;
            }
        }
        return bytes;
    }

    private static long serialized(Text text) {
        return WritableUtils.getVIntSize(text.getLength()) + text.getLength();
    }
}
