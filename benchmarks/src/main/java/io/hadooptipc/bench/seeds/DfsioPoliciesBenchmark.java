package io.hadooptipc.bench.seeds;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.fs.TestDFSIO;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.net.DFSNetworkTopology;
import org.apache.hadoop.util.ToolRunner;
import org.knowm.xchart.CategoryChart;

import io.hadooptipc.hdfs.read.ReadCostNetworkTopology;
import io.hadooptipc.hdfs.read.ReadOrderSettings;

/**
 * Seed 001's figure 1 plus our row: TestDFSIO write and read throughput of HOT, ONE_SSD and
 * ALL_SSD files, and of ONE_SSD files read in our SSD-first order, on one MiniDFSCluster
 * whose volumes are the directories given (benchmarks/dfsio-policies mounts throttled loop
 * devices there). All rows run in each round, interleaved, each a write then a read, with
 * the page cache dropped before both; round r starts at row r (mod the row count), so that no row
 * is always the first on a fresh cluster or always the one after another's page cache and
 * write-back.
 *
 * <p>The read order is switched by restarting the NameNode with {@code read-order.enabled}
 * flipped: same DataNodes, only the NameNode's sort differs.
 *
 * <pre>
 * DfsioPoliciesBenchmark SSD_DIRS DISK_DIRS SSD_DEVICES DISK_DEVICES FILES FILE_MB BLOCK_MB ROUNDS
 *     OUT_DIR WORK_DIR SETUP_TEXT
 * </pre>
 * SSD_DIRS and DISK_DIRS: one directory a DataNode, comma-separated. SSD_DEVICES and
 * DISK_DEVICES: the block devices under them (names in /sys/block), whose counters say how
 * many bytes each row wrote to and read from each kind.
 */
public final class DfsioPoliciesBenchmark {
    record Row(String name, String policy, boolean ssdFirst) {
    }

    static final List<Row> ROWS = List.of(
            new Row("HOT", "HOT", false),
            new Row("ONE_SSD", "ONE_SSD", false),
            new Row("ALL_SSD", "ALL_SSD", false),
            new Row("ONE_SSD SSD-first", "ONE_SSD", true));

    /** Seed 001's figure 1 (MB/s, 3 DataNodes, 128 x 1 GB files), for the summary only. */
    private static final Map<String, double[]> SEED_WRITE_READ = Map.of(
            "HOT", new double[] {248, 377}, "ONE_SSD", new double[] {202, 271}, "ALL_SSD", new double[] {835, 1935});

    /** Bytes moved to and from the SSD and DISK devices during one phase. */
    record DeviceBytes(double diskMb, double ssdMb) {
    }

    /** Indexes into {@link #bytesReadAndWritten}. */
    private static final int READ = 0;
    private static final int WRITTEN = 1;

    record Result(int round, Row row, double writeMbps, double readMbps, double readAvgIoRate,
            DeviceBytes written, DeviceBytes read) {
    }

    private final String[] ssdDirs;
    private final String[] diskDirs;
    private final List<String> ssdDevices;
    private final List<String> diskDevices;
    private final int files;
    private final int fileMb;
    private final int blockMb;
    private final Path work;
    private MiniDFSCluster cluster;
    private boolean ssdFirst;

    private DfsioPoliciesBenchmark(String[] args) {
        ssdDirs = args[0].split(",");
        diskDirs = args[1].split(",");
        ssdDevices = List.of(args[2].split(","));
        diskDevices = List.of(args[3].split(","));
        files = Integer.parseInt(args[4]);
        fileMb = Integer.parseInt(args[5]);
        blockMb = Integer.parseInt(args[6]);
        work = Path.of(args[9]);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 11) {
            System.err.println("usage: DfsioPoliciesBenchmark SSD_DIRS DISK_DIRS SSD_DEVICES DISK_DEVICES FILES FILE_MB"
                    + " BLOCK_MB ROUNDS OUT_DIR WORK_DIR SETUP_TEXT");
            System.exit(2);
        }
        // exit explicitly: the LocalJobRunner and MiniDFSCluster leave non-daemon threads behind
        try {
            List<Result> results = new DfsioPoliciesBenchmark(args).run(Integer.parseInt(args[7]));
            write(Path.of(args[8]), results, args[10]);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private List<Result> run(int rounds) throws Exception {
        startCluster();
        try {
            List<Result> results = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                for (Row row : rowOrder(round)) {
                    useSsdFirstOrder(row.ssdFirst);
                    Map<String, long[]> beforeWrite = deviceBytes();
                    double writeMbps = dfsio(row.policy, "-write", "-storagePolicy", row.policy)[0];
                    Map<String, long[]> beforeRead = deviceBytes();
                    double[] read = dfsio(row.policy, "-read");
                    Map<String, long[]> afterRead = deviceBytes();
                    Result r = new Result(round, row, writeMbps, read[0], read[1],
                            bytesMoved(beforeWrite, beforeRead, WRITTEN), bytesMoved(beforeRead, afterRead, READ));
                    System.out.printf(Locale.ROOT, "round %d %-18s write %7.1f MB/s (%4.0f MB to DISK, %4.0f MB to SSD)"
                            + "  read %7.1f MB/s (%4.0f MB from DISK, %4.0f MB from SSD)%n", round, row.name,
                            r.writeMbps, r.written.diskMb, r.written.ssdMb, r.readMbps, r.read.diskMb, r.read.ssdMb);
                    results.add(r);
                }
            }
            return results;
        } finally {
            cluster.shutdown();
        }
    }

    /** The rows in round {@code round}'s order: {@link #ROWS} rotated left by the round number. */
    static List<Row> rowOrder(int round) {
        List<Row> order = new ArrayList<>(ROWS);
        Collections.rotate(order, -round);
        return order;
    }

    private void startCluster() throws IOException {
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, work.resolve("cluster").toString());
        conf.set("hadoop.tmp.dir", work.resolve("tmp").toString());
        conf.setClass(DFSConfigKeys.DFS_NET_TOPOLOGY_IMPL_KEY, ReadCostNetworkTopology.class,
                DFSNetworkTopology.class);
        conf.setBoolean(ReadOrderSettings.ENABLED, false);
        conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, (long) blockMb << 20);
        conf.set("mapreduce.framework.name", "local");
        Configuration[] volumes = new Configuration[ssdDirs.length];
        StorageType[][] types = new StorageType[ssdDirs.length][];
        for (int i = 0; i < volumes.length; i++) {
            volumes[i] = new Configuration(false);
            volumes[i].set(DFSConfigKeys.DFS_DATANODE_DATA_DIR_KEY,
                    "[SSD]" + Path.of(ssdDirs[i]).toUri() + ",[DISK]" + Path.of(diskDirs[i]).toUri());
            types[i] = new StorageType[] {StorageType.SSD, StorageType.DISK};
        }
        cluster = new MiniDFSCluster.Builder(conf).numDataNodes(volumes.length).manageDataDfsDirs(false)
                .storagesPerDatanode(2).storageTypes(types).dataNodeConfOverlays(volumes).build();
        cluster.waitActive();
    }

    private void useSsdFirstOrder(boolean on) throws IOException {
        if (on == ssdFirst) {
            return;
        }
        cluster.getConfiguration(0).setBoolean(ReadOrderSettings.ENABLED, on);
        cluster.restartNameNode(0, true);
        cluster.waitActive();
        ssdFirst = on;
    }

    /**
     * Runs TestDFSIO after writing back and dropping the page cache (so a read comes from the
     * devices and a write does not share them with an earlier one's write-back), and writes
     * back what it left dirty, so the device counters that follow include it.
     *
     * @return TestDFSIO's throughput and average IO rate, MB/s
     */
    private double[] dfsio(String policy, String... args) throws Exception {
        dropPageCache();
        Configuration conf = new Configuration(cluster.getConfiguration(0));
        conf.set("fs.defaultFS", cluster.getFileSystem().getUri().toString());
        conf.set("test.build.data", "/benchmarks/" + policy);
        Path resFile = work.resolve("dfsio-" + policy + ".log");
        Files.deleteIfExists(resFile);
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("-nrFiles", String.valueOf(files), "-size", fileMb + "MB", "-resFile", resFile.toString()));
        int rc = ToolRunner.run(conf, new TestDFSIO(), all.toArray(String[]::new));
        if (rc != 0) {
            throw new IOException("TestDFSIO " + all + " failed: " + rc);
        }
        sync();
        Map<String, Double> rates = rates(Files.readAllLines(resFile));
        return new double[] {rates.get("Throughput mb/sec"), rates.get("Average IO rate mb/sec")};
    }

    /** The "NAME mb/sec: VALUE" lines of a TestDFSIO result file. */
    static Map<String, Double> rates(List<String> resultLines) {
        Map<String, Double> rates = new LinkedHashMap<>();
        for (String line : resultLines) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).endsWith("mb/sec")) {
                rates.put(line.substring(0, colon).strip(), Double.parseDouble(line.substring(colon + 1).strip()));
            }
        }
        if (!rates.containsKey("Throughput mb/sec") || !rates.containsKey("Average IO rate mb/sec")) {
            throw new IllegalArgumentException("no TestDFSIO rates in " + resultLines);
        }
        return rates;
    }

    private static void sync() throws IOException, InterruptedException {
        if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
            throw new IOException("sync failed");
        }
    }

    /** Write-back first: only clean pages can be dropped. */
    private static void dropPageCache() throws IOException, InterruptedException {
        sync();
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
    }

    /** Bytes read and written so far by each SSD and DISK device, as {@link #bytesReadAndWritten}. */
    private Map<String, long[]> deviceBytes() throws IOException {
        Map<String, long[]> bytes = new LinkedHashMap<>();
        for (List<String> devices : List.of(ssdDevices, diskDevices)) {
            for (String device : devices) {
                bytes.put(device, bytesReadAndWritten(Files.readString(Path.of("/sys/block", device, "stat"))));
            }
        }
        return bytes;
    }

    /**
     * Bytes read and written from a /sys/block/NAME/stat line: its third and seventh fields
     * count 512-byte sectors, whatever the device's own sector size.
     */
    static long[] bytesReadAndWritten(String statLine) {
        String[] f = statLine.strip().split("\\s+");
        return new long[] {Long.parseLong(f[2]) * 512, Long.parseLong(f[6]) * 512};
    }

    /** @param direction {@link #READ} or {@link #WRITTEN} */
    private DeviceBytes bytesMoved(Map<String, long[]> before, Map<String, long[]> after, int direction) {
        ToDoubleFunction<List<String>> mb = devices -> devices.stream()
                .mapToLong(d -> after.get(d)[direction] - before.get(d)[direction]).sum() / 1048576.0;
        return new DeviceBytes(mb.applyAsDouble(diskDevices), mb.applyAsDouble(ssdDevices));
    }

    private static void write(Path out, List<Result> results, String setup) throws IOException {
        StringBuilder csv = new StringBuilder("round,row,policy,read_order,write_mbps,read_mbps,read_avg_io_rate_mbps,"
                + "written_to_disk_mb,written_to_ssd_mb,read_from_disk_mb,read_from_ssd_mb\n");
        for (Result r : results) {
            csv.append(String.format(Locale.ROOT, "%d,%s,%s,%s,%.1f,%.1f,%.1f,%.0f,%.0f,%.0f,%.0f%n", r.round,
                    r.row.name, r.row.policy, r.row.ssdFirst ? "ssd-first" : "stock", r.writeMbps, r.readMbps,
                    r.readAvgIoRate, r.written.diskMb, r.written.ssdMb, r.read.diskMb, r.read.ssdMb));
        }
        CategoryChart chart = Charts.bars("TestDFSIO on 3 DataNodes, SSD and throttled DISK volumes (medians)",
                "storage policy (read order)", "MB/s");
        List<String> names = ROWS.stream().map(Row::name).toList();
        chart.addSeries("write", names, ROWS.stream().map(row -> Stats.median(ofRow(results, row), Result::writeMbps)).toList());
        chart.addSeries("read", names, ROWS.stream().map(row -> Stats.median(ofRow(results, row), Result::readMbps)).toList());
        Charts.save(out, "plot", chart);
        Results.write(out, "dfsio-policies", csv, summary(results, setup));
    }

    private static String summary(List<Result> results, String setup) {
        StringBuilder md = new StringBuilder(setup).append("\n\n");
        long rounds = results.stream().mapToInt(Result::round).distinct().count();
        md.append(String.format(Locale.ROOT, "TestDFSIO, MB/s: medians of %d interleaved rounds (in each round every"
                + " row writes its files, then reads them, round r starting at row r; page cache written back and dropped before each phase)."
                + " Device MB: what each phase moved to or from the DISK and SSD loop devices"
                + " (/sys/block/*/stat), replicas included.%n%n", rounds));
        md.append("| row | write MB/s | read MB/s | read avg IO rate MB/s | written to DISK MB | written to SSD MB"
                + " | read from DISK MB | read from SSD MB |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : ROWS) {
            List<Result> of = ofRow(results, row);
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f |%n", row.name,
                    Stats.median(of, Result::writeMbps), Stats.median(of, Result::readMbps),
                    Stats.median(of, Result::readAvgIoRate), Stats.median(of, r -> r.written.diskMb),
                    Stats.median(of, r -> r.written.ssdMb), Stats.median(of, r -> r.read.diskMb),
                    Stats.median(of, r -> r.read.ssdMb)));
        }
        Row hot = ROWS.get(0);
        Row oneSsd = ROWS.get(1);
        Row allSsd = ROWS.get(2);
        Row ssdFirst = ROWS.get(3);
        md.append("\nMedians of the per-round ratios, next to seed 001's figure 1 (its absolute MB/s, on real SSDs"
                + " and hard disks with 128 GB of data, are not reproducible here; its orders and ratios are"
                + " what this run can check):\n\n| ratio | write, here | write, seed | read, here | read, seed |\n"
                + "|---|---:|---:|---:|---:|\n");
        ratioRow(md, results, allSsd, hot, true);
        ratioRow(md, results, oneSsd, hot, true);
        ratioRow(md, results, allSsd, oneSsd, true);
        ratioRow(md, results, ssdFirst, oneSsd, false);
        ratioRow(md, results, ssdFirst, allSsd, false);
        md.append("\nSeed 001's figure 1, MB/s (write / read): ");
        md.append(String.join(", ", List.of(hot, oneSsd, allSsd).stream().map(row -> String.format(Locale.ROOT,
                "%s %.0f / %.0f", row.name, SEED_WRITE_READ.get(row.name)[0], SEED_WRITE_READ.get(row.name)[1]))
                .toList()));
        md.append("; it has no SSD-first row (its conclusion names the DISK bottleneck of ONE_SSD reads as future"
                + " work).\n\n");
        List<Row> seedRows = List.of(hot, oneSsd, allSsd);
        md.append(String.format(Locale.ROOT, "Order of the seed's three rows, fastest first: writes here %s, in the"
                + " seed %s; reads here %s, in the seed %s.%n", fastestFirst(seedRows, r -> Stats.median(ofRow(results, r),
                Result::writeMbps)), fastestFirst(seedRows, r -> SEED_WRITE_READ.get(r.name)[0]),
                fastestFirst(seedRows, r -> Stats.median(ofRow(results, r), Result::readMbps)),
                fastestFirst(seedRows, r -> SEED_WRITE_READ.get(r.name)[1])));
        md.append(String.format(Locale.ROOT, "%nONE_SSD reads in the stock order took %.0f%% of their bytes from the"
                + " DISK devices, in our order %.0f%%: seed 001's diagnosis (the stock order looks at network distance"
                + " only, so readers land on the slow replica) is what the DISK share shows. Here all DataNodes are one"
                + " host, so every replica is at the same distance and the stock order is a shuffle: two reads in"
                + " three hit DISK for ONE_SSD against three in three for HOT, which is why ONE_SSD reads cannot fall"
                + " below HOT here as they did on the seed's real network and disks. Writes run at the pipeline's"
                + " slowest device: every HOT and ONE_SSD pipeline has DISK replicas, ALL_SSD none. The SSD devices"
                + " are memory, so the SSD rows are bound by the CPUs, which they share with whatever else the machine"
                + " runs (the load average above); they vary between rounds, the DISK rows hold near the limits.%n",
                100 * diskShare(results, oneSsd), 100 * diskShare(results, ssdFirst)));
        return md.toString();
    }

    private static String fastestFirst(List<Row> rows, ToDoubleFunction<Row> mbps) {
        return rows.stream().sorted((a, b) -> Double.compare(mbps.applyAsDouble(b), mbps.applyAsDouble(a)))
                .map(Row::name).collect(Collectors.joining(" > "));
    }

    /** The share of a row's read bytes that came from the DISK devices, over all rounds. */
    private static double diskShare(List<Result> results, Row row) {
        double disk = results.stream().filter(r -> r.row == row).mapToDouble(r -> r.read.diskMb).sum();
        double ssd = results.stream().filter(r -> r.row == row).mapToDouble(r -> r.read.ssdMb).sum();
        return disk / (disk + ssd);
    }

    /** One line of the ratio table: {@code a / b} here, and in the seed where it has both rows. */
    private static void ratioRow(StringBuilder md, List<Result> results, Row a, Row b, boolean inSeed) {
        String seedWrite = "–";
        String seedRead = "–";
        if (inSeed) {
            seedWrite = String.format(Locale.ROOT, "%.2f", SEED_WRITE_READ.get(a.name)[0] / SEED_WRITE_READ.get(b.name)[0]);
            seedRead = String.format(Locale.ROOT, "%.2f", SEED_WRITE_READ.get(a.name)[1] / SEED_WRITE_READ.get(b.name)[1]);
        }
        md.append(String.format(Locale.ROOT, "| %s / %s | %.2f | %s | **%.2f** | %s |%n", a.name, b.name,
                roundRatio(results, a, b, Result::writeMbps), seedWrite, roundRatio(results, a, b, Result::readMbps),
                seedRead));
    }

    private static double roundRatio(List<Result> results, Row a, Row b, ToDoubleFunction<Result> value) {
        int rounds = results.stream().mapToInt(Result::round).max().orElseThrow() + 1;
        return Stats.median(IntStream.range(0, rounds)
                .mapToDouble(round -> value(results, round, a, value) / value(results, round, b, value)));
    }

    private static double value(List<Result> results, int round, Row row, ToDoubleFunction<Result> value) {
        return results.stream().filter(r -> r.round == round && r.row == row).mapToDouble(value).findFirst()
                .orElseThrow();
    }

    private static List<Result> ofRow(List<Result> results, Row row) {
        return results.stream().filter(r -> r.row == row).toList();
    }
}
