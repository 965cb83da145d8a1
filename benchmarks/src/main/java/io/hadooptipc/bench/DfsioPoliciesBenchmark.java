package io.hadooptipc.hdfs.evidence;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.fs.TestDFSIO;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.net.DFSNetworkTopology;
import org.apache.hadoop.util.ToolRunner;

import io.hadooptipc.hdfs.read.ReadCostNetworkTopology;
import io.hadooptipc.hdfs.read.ReadOrderSettings;

/**
 * TestDFSIO reads of ONE_SSD files with the stock replica order and with ours, and of
 * ALL_SSD and HOT files for reference, on one MiniDFSCluster whose volumes are the
 * directories given (the evidence script mounts throttled loop devices there). All rows
 * run in each round, interleaved, with the page cache dropped before every read.
 *
 * <p>The order is switched by restarting the NameNode with {@code read-order.enabled}
 * flipped: same DataNodes, same blocks, only the NameNode's sort differs.
 *
 * <pre>
 * DfsioReadOrderBenchmark SSD_DIRS DISK_DIRS FILES FILE_MB BLOCK_MB ROUNDS OUT_DIR WORK_DIR
 *     BLKIO_STATS DISK_DEVICES SSD_DEVICES SETUP_TEXT
 * </pre>
 * SSD_DIRS and DISK_DIRS: one directory a DataNode, comma-separated. BLKIO_STATS: the
 * benchmark cgroup's blkio.throttle.io_service_bytes, read to count the bytes each row
 * read from the DISK and SSD devices (MAJ:MIN lists).
 */
public final class DfsioReadOrderBenchmark {
    private record Row(String name, String policy, boolean ourOrder) {
    }

    private static final List<Row> ROWS = List.of(
            new Row("ONE_SSD stock order", "ONE_SSD", false),
            new Row("ONE_SSD our order", "ONE_SSD", true),
            new Row("ALL_SSD", "ALL_SSD", false),
            new Row("HOT", "HOT", false));

    private record Result(int round, Row row, double throughput, double avgIoRate, double diskMb, double ssdMb) {
    }

    private final String[] ssdDirs;
    private final String[] diskDirs;
    private final int files;
    private final int fileMb;
    private final int blockMb;
    private final Path work;
    private final Path blkioStats;
    private final List<String> diskDevices;
    private final List<String> ssdDevices;
    private MiniDFSCluster cluster;
    private boolean ourOrder;

    private DfsioReadOrderBenchmark(String[] args) {
        ssdDirs = args[0].split(",");
        diskDirs = args[1].split(",");
        files = Integer.parseInt(args[2]);
        fileMb = Integer.parseInt(args[3]);
        blockMb = Integer.parseInt(args[4]);
        work = Path.of(args[7]);
        blkioStats = Path.of(args[8]);
        diskDevices = List.of(args[9].split(","));
        ssdDevices = List.of(args[10].split(","));
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 12) {
            System.err.println("usage: DfsioReadOrderBenchmark SSD_DIRS DISK_DIRS FILES FILE_MB BLOCK_MB ROUNDS"
                    + " OUT_DIR WORK_DIR BLKIO_STATS DISK_DEVICES SSD_DEVICES SETUP_TEXT");
            System.exit(2);
        }
        // exit explicitly: the LocalJobRunner and MiniDFSCluster leave non-daemon threads behind
        try {
            List<Result> results = new DfsioReadOrderBenchmark(args).run(Integer.parseInt(args[5]));
            writeResults(Path.of(args[6]), results, args[11]);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private List<Result> run(int rounds) throws Exception {
        startCluster();
        try {
            for (String policy : List.of("ONE_SSD", "ALL_SSD", "HOT")) {
                dfsio(policy, "-write", "-storagePolicy", policy);
            }
            List<Result> results = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                for (Row row : ROWS) {
                    useOurOrder(row.ourOrder);
                    dropPageCache();
                    Map<String, Long> before = bytesReadByDevice();
                    double[] rates = dfsio(row.policy, "-read");
                    Map<String, Long> after = bytesReadByDevice();
                    Result r = new Result(round, row, rates[0], rates[1],
                            megabytes(before, after, diskDevices), megabytes(before, after, ssdDevices));
                    System.out.printf(Locale.ROOT, "round %d %-20s %8.1f MB/s  (%.0f MB from DISK, %.0f MB from SSD)%n",
                            round, row.name, r.throughput, r.diskMb, r.ssdMb);
                    results.add(r);
                }
            }
            return results;
        } finally {
            cluster.shutdown();
        }
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

    private void useOurOrder(boolean ours) throws IOException {
        if (ours == ourOrder) {
            return;
        }
        cluster.getConfiguration(0).setBoolean(ReadOrderSettings.ENABLED, ours);
        cluster.restartNameNode(0, true);
        cluster.waitActive();
        ourOrder = ours;
    }

    /** @return TestDFSIO's throughput and average IO rate, MB/s */
    private double[] dfsio(String policy, String... args) throws Exception {
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
        Map<String, Double> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(resFile)) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.contains("mb/sec")) {
                values.put(line.substring(0, colon).strip(), Double.parseDouble(line.substring(colon + 1).strip()));
            }
        }
        return new double[] {values.get("Throughput mb/sec"), values.get("Average IO rate mb/sec")};
    }

    /** Write-back first: only clean pages can be dropped. */
    private static void dropPageCache() throws IOException, InterruptedException {
        if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
            throw new IOException("sync failed");
        }
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
    }

    private Map<String, Long> bytesReadByDevice() throws IOException {
        Map<String, Long> bytes = new LinkedHashMap<>();
        for (String line : Files.readAllLines(blkioStats)) {
            String[] f = line.split(" ");
            if (f.length == 3 && f[1].equals("Read")) {
                bytes.put(f[0], Long.parseLong(f[2]));
            }
        }
        return bytes;
    }

    private static double megabytes(Map<String, Long> before, Map<String, Long> after, List<String> devices) {
        long sum = 0;
        for (String d : devices) {
            sum += after.getOrDefault(d, 0L) - before.getOrDefault(d, 0L);
        }
        return sum / 1048576.0;
    }

    private static void writeResults(Path out, List<Result> results, String setup) throws IOException {
        Files.createDirectories(out);
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("results.csv")))) {
            csv.println("round,row,policy,order,throughput_mbps,avg_io_rate_mbps,disk_read_mb,ssd_read_mb");
            for (Result r : results) {
                csv.printf(Locale.ROOT, "%d,%s,%s,%s,%.1f,%.1f,%.0f,%.0f%n", r.round, r.row.name, r.row.policy,
                        r.row.ourOrder ? "ours" : "stock", r.throughput, r.avgIoRate, r.diskMb, r.ssdMb);
            }
        }
        Map<Row, double[]> medians = new LinkedHashMap<>();
        for (Row row : ROWS) {
            medians.put(row, new double[] {
                    median(results, row, Result::throughput), median(results, row, Result::avgIoRate),
                    median(results, row, Result::diskMb), median(results, row, Result::ssdMb)});
        }
        long rounds = results.stream().mapToInt(Result::round).distinct().count();
        try (PrintWriter md = new PrintWriter(Files.newBufferedWriter(out.resolve("summary.md")))) {
            md.println("# dfsio-read-order");
            md.println();
            md.println(setup);
            md.println();
            md.printf(Locale.ROOT, "TestDFSIO read, MB/s: medians of %d interleaved rounds (all four rows in each"
                    + " round, page cache dropped before every read). DISK and SSD MB: what the rows read from the"
                    + " DISK and SSD loop devices, from the cgroup's blkio counters.%n%n", rounds);
            md.println("| row | throughput MB/s | avg IO rate MB/s | read from DISK MB | read from SSD MB |");
            md.println("|---|---:|---:|---:|---:|");
            medians.forEach((row, m) -> md.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.0f | %.0f |%n",
                    row.name, m[0], m[1], m[2], m[3]));
            md.println();
            md.printf(Locale.ROOT, "Ratios of medians: ONE_SSD our order / stock order **%.2f**;"
                    + " ONE_SSD our order / ALL_SSD %.2f; ONE_SSD stock order / HOT %.2f.%n",
                    medians.get(ROWS.get(1))[0] / medians.get(ROWS.get(0))[0],
                    medians.get(ROWS.get(1))[0] / medians.get(ROWS.get(2))[0],
                    medians.get(ROWS.get(0))[0] / medians.get(ROWS.get(3))[0]);
        }
        System.out.print(Files.readString(out.resolve("summary.md")));
    }

    private static double median(List<Result> results, Row row, ToDoubleFunction<Result> value) {
        double[] v = results.stream().filter(r -> r.row == row).mapToDouble(value).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
