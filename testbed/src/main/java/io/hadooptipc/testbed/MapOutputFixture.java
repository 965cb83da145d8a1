package io.hadooptipc.testbed;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import javax.crypto.SecretKey;

/**
 * Generated map outputs where a NodeManager keeps them (usercache/USER/appcache/APP/output),
 * with the job token a NodeManager would be handed for them: what a shuffle server
 * serves, without running any map task. Partitions hold random bytes (what a server moves and a
 * test compares) or {@link #ofRecords records} in IFile format (what a reduce task's shuffle merges).
 */
public final class MapOutputFixture {
    /** Serialized size of a record {@link #ofRecords} writes: key and value lengths, a key of 10 bytes, a value of 80. */
    public static final int RECORD_BYTES = 100;
    private static final int KEY_BYTES = 10;
    private static final int VALUE_BYTES = 80;

    public final java.nio.file.Path localDir;
    public final int maps;
    public final int reduces;
    public final int partitionBytes;
    public final Token<JobTokenIdentifier> token;
    public final SecretKey key;
    private final List<String> mapIds;
    private final long[][] crcs;

    /** Maps {@code 0..maps-1} of random bytes, under a new job token. */
    public MapOutputFixture(java.nio.file.Path localDir, int maps, int reduces, int partitionBytes) throws IOException {
        this(localDir, mapIds(maps), reduces, partitionBytes, newToken(), MapOutputFixture::randomBytes);
    }

    /**
     * Maps {@code mapIds} whose partitions are IFile segments of records ({@link #RECORD_BYTES} each, random keys, as
     * many as fit in {@code partitionBytes}, at least one), under the job token of password {@code tokenPassword}, so
     * that servers on several machines serve one job. The map output key and value classes are {@code BytesWritable}.
     */
    public static MapOutputFixture ofRecords(java.nio.file.Path localDir, List<String> mapIds, int reduces,
                                             int partitionBytes, byte[] tokenPassword) throws IOException {
        JobTokenIdentifier id = new JobTokenIdentifier(new Text(ShuffleWire.JOB));
        Token<JobTokenIdentifier> token = new Token<>(id.getBytes(), tokenPassword, id.getKind(), new Text());
        return new MapOutputFixture(localDir, mapIds, reduces, partitionBytes, token, MapOutputFixture::records);
    }

    /** Writes one partition at the stream's position and says where it is. */
    private interface PartitionWriter {
        IndexRecord write(FSDataOutputStream out, Random random, int partitionBytes) throws IOException;
    }

    private MapOutputFixture(java.nio.file.Path localDir, List<String> mapIds, int reduces, int partitionBytes,
                             Token<JobTokenIdentifier> token, PartitionWriter partitions) throws IOException {
        this.localDir = localDir;
        this.mapIds = List.copyOf(mapIds);
        this.maps = mapIds.size();
        this.reduces = reduces;
        this.partitionBytes = partitionBytes;
        this.token = token;
        this.key = JobTokenSecretManager.createSecretKey(token.getPassword());
        this.crcs = new long[maps][reduces];
        Random random = new Random(1);
        for (int m = 0; m < maps; m++) {
            java.nio.file.Path file = outputFile(localDir, mapIds.get(m));
            Files.createDirectories(file.getParent());
            SpillRecord index = new SpillRecord(reduces);
            try (FSDataOutputStream out = new FSDataOutputStream(Files.newOutputStream(file), null)) {
                for (int r = 0; r < reduces; r++) {
                    index.putIndex(partitions.write(out, random, partitionBytes), r);
                }
            }
            byte[] written = Files.readAllBytes(file);
            for (int r = 0; r < reduces; r++) {
                IndexRecord at = index.getIndex(r);
                CRC32C crc = new CRC32C();
                crc.update(written, (int) at.startOffset, (int) at.partLength);
                crcs[m][r] = crc.getValue();
            }
            index.writeToFile(new Path(file.resolveSibling("file.out.index").toUri()), new JobConf());
        }
    }

    private static Token<JobTokenIdentifier> newToken() {
        return new Token<>(new JobTokenIdentifier(new Text(ShuffleWire.JOB)), new JobTokenSecretManager());
    }

    private static IndexRecord randomBytes(FSDataOutputStream out, Random random, int partitionBytes) throws IOException {
        long start = out.getPos();
        byte[] buf = new byte[partitionBytes];
        random.nextBytes(buf);
        out.write(buf);
        return new IndexRecord(start, partitionBytes * 2L, partitionBytes);
    }

    private static IndexRecord records(FSDataOutputStream out, Random random, int partitionBytes) throws IOException {
        long start = out.getPos();
        BytesWritable key = new BytesWritable(new byte[KEY_BYTES]);
        BytesWritable value = new BytesWritable(new byte[VALUE_BYTES]);
        IFile.Writer<BytesWritable, BytesWritable> writer = new IFile.Writer<>(new JobConf(false), out,
                BytesWritable.class, BytesWritable.class, null, null, false);
        for (int i = Math.max(1, partitionBytes / RECORD_BYTES); i > 0; i--) {
            random.nextBytes(key.getBytes());
            random.nextBytes(value.getBytes());
            writer.append(key, value);
        }
        writer.close();
        return new IndexRecord(start, writer.getRawLength(), writer.getCompressedLength());
    }

    /** A map's output file under {@code localDir}, where the NodeManager keeps it: each partition's bytes in turn. */
    public static java.nio.file.Path outputFile(java.nio.file.Path localDir, String mapId) {
        return localDir.resolve("usercache/" + ShuffleWire.USER + "/appcache/application_1700000000000_0001/output/"
                + mapId + "/file.out");
    }

    public long crc(int map, int reduce) {
        return crcs[map][reduce];
    }

    public List<String> mapIds() {
        return mapIds;
    }

    /** The ids of a job's first {@code maps} maps, as the fixture names them. */
    public static List<String> mapIds(int maps) {
        List<String> ids = new ArrayList<>();
        for (int m = 0; m < maps; m++) {
            ids.add(ShuffleWire.map(m));
        }
        return ids;
    }

    /** What a NodeManager hands its mapreduce_shuffle service when the job's first container starts. */
    public ApplicationInitializationContext application() throws IOException {
        return new ApplicationInitializationContext(ShuffleWire.USER, ApplicationId.newInstance(1700000000000L, 1),
                ShuffleHandler.serializeServiceData(token));
    }

    /**
     * Starts {@code handler} (stock's ShuffleHandler or a subclass) in this thread's node as a NodeManager
     * would, serving these map outputs on {@code port} (0: an ephemeral one).
     */
    public <H extends ShuffleHandler> H serve(H handler, Configuration conf, int port) throws IOException {
        conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, port);
        handler.setAuxiliaryLocalPathHandler(localDirs());
        handler.init(conf);
        handler.start();
        handler.initializeApplication(application());
        return handler;
    }

    /** {@link #serve} in testbed node {@code node} on an ephemeral port, the handler made there too. */
    public <H extends ShuffleHandler> H serveIn(String node, Supplier<H> handler, Configuration conf) throws Exception {
        return Testbed.on(node, () -> serve(handler.get(), conf, 0));
    }

    /** Stops, in testbed node {@code node}, a handler {@link #serveIn} started there; nothing if it never started. */
    public static void stopIn(String node, Service handler) throws Exception {
        if (handler != null) {
            Testbed.on(node, () -> {
                handler.stop();
                return null;
            });
        }
    }

    /** The NodeManager's local directories, as an aux service sees them. */
    public AuxiliaryLocalPathHandler localDirs() {
        return new AuxiliaryLocalPathHandler() {
            @Override
            public Path getLocalPathForRead(String path) throws IOException {
                java.nio.file.Path p = localDir.resolve(path);
                if (!Files.exists(p)) {
                    throw new IOException("no " + path + " in " + localDir);
                }
                return new Path(p.toString()); // scheme-less, as the NodeManager gives them
            }

            @Override
            public Path getLocalPathForWrite(String path) {
                return new Path(localDir.resolve(path).toString());
            }

            @Override
            public Path getLocalPathForWrite(String path, long size) {
                return getLocalPathForWrite(path);
            }

            @Override
            public Iterable<Path> getAllLocalPathsForRead(String path) throws IOException {
                return List.of(getLocalPathForRead(path));
            }
        };
    }
}
