package io.hadooptipc.bench.seeds;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntUnaryOperator;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapred.LocalJobRunner;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.Merger;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.apache.hadoop.metrics2.impl.MetricsSystemImpl;
import org.apache.log4j.ConsoleAppender;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler;

/**
 * A MapReduce sort (identity map and reduce over random 10-byte keys with 90-byte values, one
 * reducer) with {@code mapreduce.task.io.sort.mb} and {@code mapreduce.task.io.sort.factor}
 * varied against Hadoop's defaults, every configuration once per round, interleaved. Jobs run
 * in this JVM on LocalJobRunner: the map's MapOutputBuffer, its spills and merge and the
 * reduce's merge are the same code as on a YARN cluster, without a cluster's minutes of start-up.
 *
 * <pre>
 *   SortParamsBenchmark RECORDS_PER_MAP MAPS SORT_MBS FACTORS ROUNDS WORK_DIR OUT_DIR CACHE_COUNTERS
 * </pre>
 *
 * SORT_MBS and FACTORS are comma-separated; every pair is run, and Hadoop's defaults as the
 * anchor. CACHE_COUNTERS is what {@code perf stat -e cache-misses} printed on this machine.
 */
public final class SortParamsBenchmark {
    static final int KEY_BYTES = 10;
    static final int VALUE_BYTES = 90;
    static final Config ANCHOR = new Config(MRJobConfig.DEFAULT_IO_SORT_MB, MRJobConfig.DEFAULT_IO_SORT_FACTOR);

    private SortParamsBenchmark() {
    }

    record Config(int sortMb, int factor) {
        @Override
        public String toString() {
            return sortMb + " MB, factor " + factor;
        }
    }

    /** One job's figures. */
    record Run(int round, Config config, double seconds, double mapSeconds, double cpuSeconds, MergeLog.Counts log,
            long mapOutputRecords, long spilledRecords, long fileBytesWritten, double gcSeconds) {
        double spillsPerMap(int maps) {
            return (double) log.spills() / maps;
        }

        double writesPerRecord() {
            return (double) spilledRecords / mapOutputRecords;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: SortParamsBenchmark RECORDS_PER_MAP MAPS SORT_MBS FACTORS ROUNDS WORK_DIR OUT_DIR CACHE_COUNTERS");
            System.exit(2);
        }
        MergeLog mergeLog = captureMergeLog();
        List<Config> configs = new ArrayList<>();
        for (int sortMb : parseInts(args[2])) {
            for (int factor : parseInts(args[3])) {
                configs.add(new Config(sortMb, factor));
            }
        }
        configs.add(ANCHOR);
        Bench bench = new Bench(Long.parseLong(args[0]), Integer.parseInt(args[1]), configs, Integer.parseInt(args[4]),
                Path.of(args[5]), mergeLog);
        bench.execute();
        new Report(bench, args[7]).write(Path.of(args[6]));
    }

    private static int[] parseInts(String csv) {
        return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    /**
     * Sends the INFO lines of MapTask, Merger and LocalJobRunner to a {@link MergeLog}, and only
     * warnings and errors to the console.
     */
    private static MergeLog captureMergeLog() {
        ConsoleAppender console = new ConsoleAppender(new PatternLayout("%d{HH:mm:ss} %p %c{1}: %m%n"), ConsoleAppender.SYSTEM_ERR);
        console.setThreshold(Level.WARN);
        Logger.getRootLogger().setLevel(Level.WARN);
        Logger.getRootLogger().addAppender(console);
        // Every job after the first warns that LocalJobRunner's metrics are already registered.
        Logger.getLogger(MetricsSystemImpl.class).setLevel(Level.ERROR);
        MergeLog mergeLog = new MergeLog();
        for (Class<?> logging : List.of(MapTask.class, Merger.class, LocalJobRunner.class)) {
            Logger logger = Logger.getLogger(logging);
            logger.setLevel(Level.INFO);
            logger.addAppender(mergeLog);
        }
        return mergeLog;
    }

    static final class Bench {
        final long recordsPerMap;
        final int maps;
        final List<Config> configs;
        final int rounds;
        final List<Run> runs = new ArrayList<>();
        private final Path work;
        private final MergeLog mergeLog;
        /** On a machine shared with other work, the CPU a job used varies less than its wall time. */
        private static final com.sun.management.OperatingSystemMXBean PROCESS =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        Bench(long recordsPerMap, int maps, List<Config> configs, int rounds, Path work, MergeLog mergeLog) {
            this.recordsPerMap = recordsPerMap;
            this.maps = maps;
            this.configs = configs;
            this.rounds = rounds;
            this.work = work;
            this.mergeLog = mergeLog;
        }

        void execute() throws Exception {
            Path input = work.resolve("input");
            writeInput(input);
            System.out.printf("warm-up: %s%n", ANCHOR);
            sort(input, ANCHOR, -1);
            for (int round = 0; round < rounds; round++) {
                // Each round starts elsewhere in the list, so no configuration always runs first.
                List<Config> order = new ArrayList<>(configs);
                Collections.rotate(order, -round * configs.size() / rounds);
                for (Config config : order) {
                    Run run = sort(input, config, round);
                    runs.add(run);
                    System.out.printf(Locale.ROOT, "round %d  %-18s %6.2f s (map phase %6.2f s), %3d spills, %3d+%d merge passes, %.2f writes/record%n",
                            round + 1, config, run.seconds, run.mapSeconds, run.log.spills(), run.log.mapMergePasses(),
                            run.log.reduceMergePasses(), run.writesPerRecord());
                }
            }
        }

        /** One SequenceFile per map of random keys and values; splits are whole files. */
        private void writeInput(Path input) throws IOException {
            Configuration conf = new Configuration();
            Random random = new Random(42);
            byte[] key = new byte[KEY_BYTES];
            byte[] value = new byte[VALUE_BYTES];
            for (int map = 0; map < maps; map++) {
                org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(input.resolve("part-" + map).toUri());
                try (SequenceFile.Writer writer = SequenceFile.createWriter(conf, SequenceFile.Writer.file(file),
                        SequenceFile.Writer.keyClass(BytesWritable.class), SequenceFile.Writer.valueClass(BytesWritable.class),
                        SequenceFile.Writer.compression(SequenceFile.CompressionType.NONE))) {
                    for (long i = 0; i < recordsPerMap; i++) {
                        random.nextBytes(key);
                        random.nextBytes(value);
                        writer.append(new BytesWritable(key), new BytesWritable(value));
                    }
                }
            }
            System.out.printf("input: %d maps x %d records of %d+%d bytes%n", maps, recordsPerMap, KEY_BYTES, VALUE_BYTES);
        }

        private Run sort(Path input, Config config, int round) throws Exception {
            Configuration conf = new Configuration();
            conf.set(MRConfig.FRAMEWORK_NAME, MRConfig.LOCAL_FRAMEWORK_NAME);
            conf.set("fs.defaultFS", "file:///");
            conf.set("hadoop.tmp.dir", work.resolve("tmp").toString());
            conf.set(MRConfig.LOCAL_DIR, work.resolve("local").toString());
            conf.set("mapreduce.jobtracker.staging.root.dir", work.resolve("staging").toString());
            conf.setBoolean("mapreduce.client.genericoptionsparser.used", true);
            conf.setLong(FileInputFormat.SPLIT_MINSIZE, Long.MAX_VALUE);
            conf.setInt(MRJobConfig.IO_SORT_MB, config.sortMb);
            conf.setInt(MRJobConfig.IO_SORT_FACTOR, config.factor);

            Job job = Job.getInstance(conf, "sort " + config);
            job.setJarByClass(SortParamsBenchmark.class);
            job.setInputFormatClass(SequenceFileInputFormat.class);
            job.setMapperClass(Mapper.class); // the identity map and reduce
            job.setReducerClass(Reducer.class);
            job.setNumReduceTasks(1);
            job.setOutputKeyClass(BytesWritable.class);
            job.setOutputValueClass(BytesWritable.class);
            job.setOutputFormatClass(NullOutputFormat.class); // what is measured ends at the reduce's merge
            FileInputFormat.addInputPath(job, new org.apache.hadoop.fs.Path(input.toUri()));

            mergeLog.take();
            long gcBefore = gcMillis();
            long cpuBefore = PROCESS.getProcessCpuTime();
            long writtenBefore = localBytesWritten();
            long submitMillis = System.currentTimeMillis();
            long start = System.nanoTime();
            job.submit();
            while (!job.isComplete()) {
                Thread.sleep(10);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (PROCESS.getProcessCpuTime() - cpuBefore) / 1e9;
            if (!job.isSuccessful()) {
                throw new IllegalStateException("sort " + config + " failed: " + job.getStatus().getFailureInfo());
            }
            MergeLog.Counts log = mergeLog.take();
            if (log.mapPhaseEndMillis() < 0) {
                throw new IllegalStateException("LocalJobRunner did not log the end of the map phase");
            }
            Counters counters = job.getCounters();
            return new Run(round, config, seconds, (log.mapPhaseEndMillis() - submitMillis) / 1e3, cpuSeconds, log,
                    counters.findCounter(TaskCounter.MAP_OUTPUT_RECORDS).getValue(),
                    counters.findCounter(TaskCounter.SPILLED_RECORDS).getValue(),
                    localBytesWritten() - writtenBefore, (gcMillis() - gcBefore) / 1e3);
        }

        /**
         * Bytes this JVM has written to the local file system. Not the job's FILE_BYTES_WRITTEN:
         * its tasks report the JVM's running total, which on LocalJobRunner includes earlier jobs.
         */
        @SuppressWarnings("deprecation") // getAllStatistics is how the tasks read these statistics too
        private static long localBytesWritten() {
            return FileSystem.getAllStatistics().stream().filter(s -> s.getScheme().equals("file"))
                    .mapToLong(FileSystem.Statistics::getBytesWritten).sum();
        }

        private static long gcMillis() {
            return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
        }

        List<Run> runsOf(Config config) {
            return runs.stream().filter(r -> r.config.equals(config)).toList();
        }

        double median(Config config, ToDoubleFunction<Run> figure) {
            return Stats.median(runsOf(config), figure);
        }

        /** The median over rounds of {@code a}'s figure divided by {@code b}'s in the same round. */
        double ratio(Config a, Config b, ToDoubleFunction<Run> figure) {
            return Stats.median(IntStream.range(0, rounds).mapToDouble(round -> figure.applyAsDouble(runOf(a, round))
                    / figure.applyAsDouble(runOf(b, round))));
        }

        private Run runOf(Config config, int round) {
            return runs.stream().filter(r -> r.config.equals(config) && r.round == round).findFirst().orElseThrow();
        }
    }

    /** results.csv, the plots and summary.md of one run. */
    static final class Report {
        private final Bench bench;
        private final String cacheCounters;

        Report(Bench bench, String cacheCounters) {
            this.bench = bench;
            this.cacheCounters = cacheCounters;
        }

        void write(Path out) throws IOException {
            StringBuilder csv = new StringBuilder("round,sort_mb,factor,seconds,map_seconds,cpu_seconds,spills,map_merge_passes,"
                    + "model_map_merge_passes,reduce_merge_passes,map_output_records,spilled_records,file_bytes_written,gc_seconds\n");
            for (Run r : bench.runs) {
                csv.append(String.format(Locale.ROOT, "%d,%d,%d,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%.3f%n", r.round + 1,
                        r.config.sortMb, r.config.factor, r.seconds, r.mapSeconds, r.cpuSeconds, r.log.spills(), r.log.mapMergePasses(),
                        r.log.modelMapMergePasses(r.config.factor), r.log.reduceMergePasses(), r.mapOutputRecords,
                        r.spilledRecords, r.fileBytesWritten, r.gcSeconds));
            }
            Charts.save(out, "plot", timeChart("Sort time", "job time (s)", Run::seconds));
            Charts.save(out, "plot-cpu", timeChart("CPU time of the sort", "CPU time of the JVM during the job (s)", Run::cpuSeconds));
            Charts.save(out, "plot-merges", mergeChart());
            Results.write(out, "sort-params", csv, summary());
        }

        private XYChart timeChart(String what, String yTitle, ToDoubleFunction<Run> time) {
            XYChart chart = Charts.lines(what + " by sort buffer, one line per merge factor (" + medianOfRounds() + ")",
                    "mapreduce.task.io.sort.mb (MB)", yTitle);
            // From zero, so differences look as large as they are; the legend goes below the lines.
            chart.getStyler().setYAxisMin(0.0);
            chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSW);
            for (int factor : distinct(Config::factor)) {
                List<Config> line = bench.configs.stream().filter(c -> c.factor == factor && !c.equals(ANCHOR)).toList();
                chart.addSeries("io.sort.factor " + factor, line.stream().mapToDouble(Config::sortMb).toArray(),
                        line.stream().mapToDouble(c -> bench.median(c, time)).toArray());
            }
            chart.addSeries("Hadoop defaults (" + ANCHOR + ")", new double[] {ANCHOR.sortMb},
                    new double[] {bench.median(ANCHOR, time)});
            return chart;
        }

        private CategoryChart mergeChart() {
            CategoryChart chart = Charts.bars("Spills and merges per map, disk writes per record (" + medianOfRounds() + ")",
                    "mapreduce.task.io.sort.mb / io.sort.factor", "count");
            // The tallest bars are the first ones, where the legend would be.
            chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
            List<String> labels = bench.configs.stream().map(c -> c.sortMb + "/" + c.factor).toList();
            chart.addSeries("spills per map", labels, perConfig(r -> r.spillsPerMap(bench.maps)));
            chart.addSeries("Merger passes per map", labels, perConfig(r -> (double) r.log.mapMergePasses() / bench.maps));
            chart.addSeries("disk writes per record", labels, perConfig(Run::writesPerRecord));
            return chart;
        }

        private String medianOfRounds() {
            return bench.rounds == 1 ? "one round" : "median of " + bench.rounds + " rounds";
        }

        private List<Double> perConfig(ToDoubleFunction<Run> figure) {
            return bench.configs.stream().map(c -> bench.median(c, figure)).toList();
        }

        private int[] distinct(ToIntFunction<Config> figure) {
            return bench.configs.stream().filter(c -> !c.equals(ANCHOR)).mapToInt(figure).distinct().sorted().toArray();
        }

        private String summary() {
            StringBuilder s = new StringBuilder();
            long mapOutputBytes = bench.recordsPerMap * (KEY_BYTES + VALUE_BYTES + 2 * Integer.BYTES);
            s.append(String.format(Locale.ROOT, "A MapReduce sort on LocalJobRunner (in one JVM, one map slot): identity map and reduce, "
                    + "%d map(s) of %d records (%d-byte keys, %d-byte values; %.0f MB of serialized map output each), one reducer, "
                    + "no job output (NullOutputFormat), input and intermediate files on the local file system. "
                    + "Every configuration ran once per round, %d round(s) interleaved (after one warm-up job), each round starting at a "
                    + "different configuration. Times are medians; ratios are medians of the ratio to Hadoop's defaults (%s) "
                    + "within each round.%n%n", bench.maps, bench.recordsPerMap, KEY_BYTES, VALUE_BYTES, mapOutputBytes / 1e6,
                    bench.rounds, ANCHOR));
            s.append("| sort.mb | factor | job s | ×defaults | map phase s | ×defaults | CPU s | ×defaults | spills/map | Merger passes/map (model) "
                    + "| merge levels/map | reduce passes | disk writes/record | MB written | ×defaults | GC s |\n");
            s.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Config c : bench.configs) {
                int spillsPerMap = spillsPerMap(c);
                s.append(String.format(Locale.ROOT, "| %s%d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f (%.1f) | %d | %.0f | %.2f | %.0f | %.2f | %.2f |%n",
                        c.equals(ANCHOR) ? "defaults: " : "", c.sortMb, c.factor, bench.median(c, Run::seconds),
                        bench.ratio(c, ANCHOR, Run::seconds), bench.median(c, Run::mapSeconds), bench.ratio(c, ANCHOR, Run::mapSeconds),
                        bench.median(c, Run::cpuSeconds), bench.ratio(c, ANCHOR, Run::cpuSeconds),
                        bench.median(c, r -> r.spillsPerMap(bench.maps)),
                        bench.median(c, r -> (double) r.log.mapMergePasses() / bench.maps),
                        bench.median(c, r -> (double) r.log.modelMapMergePasses(c.factor) / bench.maps),
                        spillsPerMap <= 1 ? 0 : MergePasses.levels(spillsPerMap, c.factor),
                        bench.median(c, r -> r.log.reduceMergePasses()), bench.median(c, Run::writesPerRecord),
                        bench.median(c, r -> r.fileBytesWritten / 1e6), bench.ratio(c, ANCHOR, r -> r.fileBytesWritten),
                        bench.median(c, Run::gcSeconds)));
            }
            s.append(String.format(Locale.ROOT, "%nHow each figure is measured: *spills* are MapTask's \"Finished spill N\" log lines per map; "
                    + "*Merger passes* are Merger's \"Merging K intermediate segments\" and \"Down to the last merge-pass\" lines logged "
                    + "by map task threads (one per merge Hadoop does; captured by a log4j appender), and *model* is what Hadoop's merge "
                    + "algorithm gives for the spills counted (MergePasses.hadoop: a first merge of just enough segments, then merges of "
                    + "`factor` until at most `factor` are left, then the final one); the model %s the log in every run. "
                    + "*Merge levels* is the textbook and seed's count, ceil(log_factor(spills)). *Reduce passes* are the same Merger lines "
                    + "from the reduce task. *Disk writes/record* is SPILLED_RECORDS / MAP_OUTPUT_RECORDS (each spill, intermediate "
                    + "merge and the map's final merge writes a record once; the reduce adds one more if it spills its input); "
                    + "*MB written* is what the JVM wrote to the local file system during the job (its FileSystem statistics, which FILE_BYTES_WRITTEN reports too), all of it intermediate data here. "
                    + "*Map phase* ends when LocalJobRunner logs \"map task executor complete.\". *CPU s* is the CPU time of the whole JVM "
                    + "during the job (all its threads, JIT and GC included), which depends less on the other work on a shared "
                    + "machine than the wall time does. GC s is the JVM's collection time during the job.%n", modelMatchesLog() ? "matched" : "did NOT match"));
            s.append(String.format(Locale.ROOT, "%nNoise: configurations that do the same spills, merges and writes (%s) differ in median job time by up to "
                    + "%.0f%% and in CPU time by up to %.0f%%; time differences smaller than that are not told apart by this run.%n",
                    sameWorkGroups().stream().map(g -> g.stream().map(c -> c.sortMb + "/" + c.factor).collect(Collectors.joining(", ")))
                            .collect(Collectors.joining("; ")), 100 * noise(Run::seconds), 100 * noise(Run::cpuSeconds)));
            s.append(seedComparison());
            return s.toString();
        }

        /**
         * Groups of two or more configurations whose jobs did the same work: the same spills and
         * merges on both sides and the same records written (e.g. one spill, where the merge factor
         * does not matter). Bytes written differ by a few between them: the job's name is in job.xml.
         */
        private List<List<Config>> sameWorkGroups() {
            return bench.configs.stream().collect(Collectors.groupingBy(c -> {
                Run r = bench.runsOf(c).get(0);
                return List.of(r.log.spillsPerMap(), r.log.mapMergePasses(), r.log.reduceMergePasses(), r.spilledRecords);
            }, LinkedHashMap::new, Collectors.toList())).values().stream().filter(g -> g.size() > 1).toList();
        }

        /** The largest spread (max / min - 1) of the median {@code figure} within a group of the same work. */
        private double noise(ToDoubleFunction<Run> figure) {
            return sameWorkGroups().stream().mapToDouble(g -> {
                double[] medians = g.stream().mapToDouble(c -> bench.median(c, figure)).toArray();
                return Arrays.stream(medians).max().orElseThrow() / Arrays.stream(medians).min().orElseThrow() - 1;
            }).max().orElse(0);
        }

        private boolean modelMatchesLog() {
            return bench.runs.stream().allMatch(r -> r.log.mapMergePasses() == r.log.modelMapMergePasses(r.config.factor));
        }

        private String seedComparison() {
            StringBuilder s = new StringBuilder("\n## Against the seed (Tajo external merge sort, tables 2 and 3)\n\n");
            s.append("The seed sorts TPC-H LINEITEM (23 GB) in Tajo 0.10.1 on a 24-core worker with SSD temp storage. "
                    + "Its table 2 varies the sort buffer at fan-out 8; its table 3 varies the fan-out at a 4 MB buffer. "
                    + "Below, its published times as ratios, next to this run's ratios for the same parameters.\n\n");
            s.append("| comparison | seed | this run |\n|---|---|---|\n");
            for (SeedFigure f : SeedFigure.values()) {
                if (bench.runsOf(f.config).isEmpty() || bench.runsOf(f.base).isEmpty()) {
                    continue;
                }
                String ours = f.bytes ? against(f, r -> r.fileBytesWritten, 0)
                        : "job time " + against(f, Run::seconds, noise(Run::seconds)) + "; CPU time "
                                + against(f, Run::cpuSeconds, noise(Run::cpuSeconds));
                s.append(String.format(Locale.ROOT, "| %s | %.2f | %s |%n", f.what, f.seedRatio, ours));
            }
            int spills = spillsPerMap(new Config(SeedFigure.SORT_MB, SeedFigure.FACTORS[1]));
            s.append(String.format(Locale.ROOT, "%nThe seed counts %s merge levels for its ~%d runs per task at fan-out 2, 8 and 16 "
                    + "(log_f %d); this run's maps spill %s times at %d MB, which gives %s levels; Hadoop's Merger does %s merges for "
                    + "them (it merges `factor` segments at a time, smallest first, and counts each merge as a pass).%n",
                    perSeedFactor(f -> MergePasses.levels(SeedFigure.RUNS, f)), SeedFigure.RUNS, SeedFigure.RUNS, spills,
                    SeedFigure.SORT_MB,
                    perSeedFactor(f -> spills <= 1 ? 0 : MergePasses.levels(spills, f)),
                    perSeedFactor(f -> MergePasses.mapSide(spills, f))));
            s.append(String.format(Locale.ROOT, "%nCache misses (the seed's figure 3, its explanation for table 2): "
                    + "`perf stat -e cache-misses` here gives `%s`, so they are not measured in this VM. ", cacheCounters));
            s.append("The seed's explanation also rests on many sort tasks running at once on one worker and evicting each other's "
                    + "runs from the CPU caches; LocalJobRunner here runs one map at a time on a 2-core machine shared with other work. "
                    + "In Hadoop a small sort buffer means more spills and so more merging (more disk writes per record, as the "
                    + "table shows), while Tajo's run generation sorts a whole buffer of tuples at a time, so the seed's cost of "
                    + "a large buffer (sort time per tuple) and this run's cost of a small one (merge I/O) can point in different "
                    + "directions. The fan-out effect is the same mechanism in both: fewer levels, fewer bytes rewritten.\n");
            return s.toString();
        }

        /** This run's ratio for the seed's figure, and whether it points the same way, or is within {@code noise}. */
        private String against(SeedFigure f, ToDoubleFunction<Run> figure, double noise) {
            double ours = bench.ratio(f.config, f.base, figure);
            String verdict = Math.abs(ours - 1) <= noise ? "within this run's noise"
                    : Math.signum(ours - 1) == Math.signum(f.seedRatio - 1) ? "same direction" : "opposite direction";
            return String.format(Locale.ROOT, "%.2f (%s)", ours, verdict);
        }

        /** Spills per map at {@code config}, the same in every round (same input, same buffer). */
        private int spillsPerMap(Config config) {
            return bench.runsOf(config).isEmpty() ? 0 : (int) Math.round(bench.runsOf(config).get(0).spillsPerMap(bench.maps));
        }

        private static String perSeedFactor(IntUnaryOperator count) {
            return Arrays.stream(SeedFigure.FACTORS).mapToObj(f -> String.valueOf(count.applyAsInt(f))).collect(Collectors.joining("/"));
        }
    }

    /**
     * The seed's published figures (its tables 2 and 3, execution time in seconds and temp data
     * in GB), as the ratios this run is compared with.
     */
    enum SeedFigure {
        TIME_4MB_VS_200MB("time, buffer 4 vs 200 MB at fan-out 8", new Config(4, 8), new Config(200, 8), false, 429.5 / 577.9),
        TIME_64MB_VS_200MB("time, buffer 64 vs 200 MB at fan-out 8", new Config(64, 8), new Config(200, 8), false, 497.4 / 577.9),
        TIME_FACTOR2_VS_8("time, fan-out 2 vs 8 at 4 MB", new Config(4, 2), new Config(4, 8), false, 1021.8 / 429.5),
        TIME_FACTOR16_VS_8("time, fan-out 16 vs 8 at 4 MB", new Config(4, 16), new Config(4, 8), false, 407.2 / 429.5),
        BYTES_FACTOR2_VS_8("temp bytes written, fan-out 2 vs 8 at 4 MB", new Config(4, 2), new Config(4, 8), true, 134.2 / 60.8),
        BYTES_FACTOR16_VS_8("temp bytes written, fan-out 16 vs 8 at 4 MB", new Config(4, 16), new Config(4, 8), true, 52.8 / 60.8);

        /** The fan-outs the seed compares, at its smallest buffer. */
        static final int[] FACTORS = {2, 8, 16};
        static final int SORT_MB = 4;
        /** Runs per task the seed reports at a 4 MB buffer. */
        static final int RUNS = 185;

        final String what;
        final Config config;
        final Config base;
        final boolean bytes;
        final double seedRatio;

        SeedFigure(String what, Config config, Config base, boolean bytes, double seedRatio) {
            this.what = what;
            this.config = config;
            this.base = base;
            this.bytes = bytes;
            this.seedRatio = seedRatio;
        }
    }
}
