package io.hadooptipc.hdfs.report;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.DatanodeInfoWithStorage;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * For each file under a path: its storage policy, each block's replicas with node and
 * storage type, whether they satisfy the policy, and the read order the NameNode hands a
 * client with the stock topology and with ours.
 *
 * <pre>
 * hadoop jar hdfs-storage-policy-tools.jar io.hadooptipc.hdfs.report.StoragePolicyReport \
 *     [generic options] [-R] [-client HOST|HOST:PORT] [-clientRack RACK] PATH
 * </pre>
 */
public final class StoragePolicyReport extends Configured implements Tool {
    static final String USAGE = "usage: StoragePolicyReport [-R] [-client HOST|HOST:PORT] [-clientRack RACK] PATH";

    private final PrintStream out;

    public StoragePolicyReport(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new HdfsConfiguration(), new StoragePolicyReport(System.out), args));
    }

    @Override
    public int run(String[] args) throws IOException {
        boolean recursive = false;
        String client = InetAddress.getLocalHost().getHostAddress();
        String clientRack = NetworkTopology.DEFAULT_RACK;
        String path = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-R":
                    recursive = true;
                    break;
                case "-client":
                    client = value(args, ++i);
                    break;
                case "-clientRack":
                    clientRack = value(args, ++i);
                    break;
                default:
                    if (path != null || args[i].startsWith("-")) {
                        System.err.println(USAGE);
                        return 2;
                    }
                    path = args[i];
            }
        }
        if (path == null) {
            System.err.println(USAGE);
            return 2;
        }
        Path root = new Path(path);
        FileSystem fs = root.getFileSystem(getConf());
        if (!(fs instanceof DistributedFileSystem)) {
            System.err.println(path + " is on " + fs.getUri() + ", not HDFS");
            return 1;
        }
        DistributedFileSystem dfs = (DistributedFileSystem) fs;
        ReadOrderPreview preview = new ReadOrderPreview(getConf(),
                dfs.getDataNodeStats(DatanodeReportType.LIVE), client, clientRack);
        out.println("Read order for " + preview.readerDescription()
                + "; stock: by network distance, ours: io.hadooptipc.hdfs.read.ReadCostNetworkTopology");
        Deque<FileStatus> pending = new ArrayDeque<>(Arrays.asList(dfs.listStatus(root)));
        while (!pending.isEmpty()) {
            FileStatus status = pending.poll();
            if (status.isFile()) {
                reportFile(dfs, status, preview);
            } else if (recursive) {
                pending.addAll(Arrays.asList(dfs.listStatus(status.getPath())));
            }
        }
        return 0;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value; " + USAGE);
        }
        return args[i];
    }

    private void reportFile(DistributedFileSystem dfs, FileStatus file, ReadOrderPreview preview) throws IOException {
        String src = file.getPath().toUri().getPath();
        BlockStoragePolicy policy = dfs.getClient().getStoragePolicy(src);
        out.printf("%n%s  policy %s  replication %d  %d bytes%n", src, policy.getName(), file.getReplication(),
                file.getLen());
        int satisfied = 0;
        int index = 0;
        for (LocatedBlock block : dfs.getClient().getLocatedBlocks(src, 0, file.getLen()).getLocatedBlocks()) {
            PlacementCheck check = PlacementCheck.of(policy, file.getReplication(), block.getStorageTypes());
            if (check.satisfied()) {
                satisfied++;
            }
            out.printf("  block %d %s offset %d length %d: %s%n", index++, block.getBlock().getBlockName(),
                    block.getStartOffset(), block.getBlockSize(), describe(check, policy));
            out.println("    replicas " + replicas(block.getLocations()));
            out.println("    stock    " + replicas(preview.stockOrder(block)));
            out.println("    ours     " + replicas(preview.ourOrder(block)));
        }
        out.printf("  %d of %d blocks satisfy %s%n", satisfied, index, policy.getName());
    }

    private static String describe(PlacementCheck check, BlockStoragePolicy policy) {
        if (check.satisfied()) {
            return "satisfies " + policy.getName() + " " + check.expected();
        }
        return "does NOT satisfy " + policy.getName() + " " + check.expected() + ": missing " + check.missing()
                + ", not asked for " + check.excess();
    }

    private static String replicas(DatanodeInfoWithStorage[] replicas) {
        return Arrays.stream(replicas).map(r -> r.getXferAddr() + " " + r.getStorageType())
                .collect(Collectors.joining(", "));
    }
}
