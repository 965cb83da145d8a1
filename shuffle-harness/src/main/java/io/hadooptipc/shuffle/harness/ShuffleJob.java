package io.hadooptipc.shuffle.harness;

import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.KeyValueTextInputFormat;
import org.apache.hadoop.mapreduce.lib.map.TokenCounterMapper;
import org.apache.hadoop.mapreduce.lib.reduce.IntSumReducer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The MapReduce jobs the shuffle is tested and measured on. Each writes its own input
 * and returns the job's output as it must come out: all part files' lines, sorted.
 */
public enum ShuffleJob {
    /** Word count with a combiner over skewed random words: a few partitions of counted words. */
    WORDCOUNT("wordcount") {
        @Override
        public String writeInput(Path dir, int files, int linesPerFile) throws IOException {
            Files.createDirectories(dir);
            Random random = new Random(7);
            Map<String, Integer> counts = new TreeMap<>();
            for (int f = 0; f < files; f++) {
                StringBuilder text = new StringBuilder();
                for (int l = 0; l < linesPerFile; l++) {
                    for (int w = 0; w < 8; w++) {
                        // Skewed: a few words are everywhere, most are rare, as in text.
                        String word = "w" + Integer.toString((int) Math.pow(random.nextInt(1 << 16), 1.3) % 50_000, 36);
                        counts.merge(word, 1, Integer::sum);
                        text.append(word).append(w == 7 ? '\n' : ' ');
                    }
                }
                Files.writeString(dir.resolve("part" + f + ".txt"), text);
            }
            StringBuilder expected = new StringBuilder();
            counts.forEach((w, c) -> expected.append(w).append('\t').append(c).append('\n'));
            return expected.toString();
        }

        @Override
        void configure(Job job) {
            job.setMapperClass(TokenCounterMapper.class);
            job.setCombinerClass(IntSumReducer.class);
            job.setReducerClass(IntSumReducer.class);
            job.setOutputKeyClass(Text.class);
            job.setOutputValueClass(IntWritable.class);
        }
    },

    /**
     * Every record shuffled as it is (identity map and reduce, no combiner), keys unique so
     * the output is deterministic: with many reducers each map's output splits into many
     * partitions of a few KB, the size the seed paper expects on large clusters (3-4 KB).
     */
    SHUFFLE_HEAVY("shuffle-heavy") {
        static final int VALUE_CHARS = 48;

        @Override
        public String writeInput(Path dir, int files, int recordsPerFile) throws IOException {
            Files.createDirectories(dir);
            Random random = new Random(11);
            TreeSet<String> lines = new TreeSet<>();
            for (int f = 0; f < files; f++) {
                StringBuilder text = new StringBuilder();
                for (int r = 0; r < recordsPerFile; r++) {
                    StringBuilder line = new StringBuilder().append(f).append('-').append(r).append('\t');
                    random.ints(VALUE_CHARS, 'a', 'z' + 1).forEach(c -> line.append((char) c));
                    lines.add(line.toString());
                    text.append(line).append('\n');
                }
                Files.writeString(dir.resolve("part" + f + ".txt"), text);
            }
            return String.join("\n", lines) + "\n";
        }

        @Override
        void configure(Job job) {
            job.setInputFormatClass(KeyValueTextInputFormat.class);
            job.setMapperClass(Mapper.class);
            job.setReducerClass(Reducer.class);
            job.setOutputKeyClass(Text.class);
            job.setOutputValueClass(Text.class);
        }
    };

    private final String label;

    ShuffleJob(String label) {
        this.label = label;
    }

    /** Writes {@code files} input files of {@code records} lines each; returns the expected output's lines, sorted. */
    public abstract String writeInput(Path dir, int files, int records) throws IOException;

    abstract void configure(Job job);

    public String label() {
        return label;
    }

    public static ShuffleJob of(String label) {
        for (ShuffleJob job : values()) {
            if (job.label.equals(label)) {
                return job;
            }
        }
        throw new IllegalArgumentException("no job named " + label);
    }
}
