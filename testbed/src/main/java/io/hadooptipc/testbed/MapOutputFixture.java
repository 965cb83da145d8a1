package io.hadooptipc.testbed;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
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
import java.io.OutputStream;
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
 * serves, without running any map task.
 */
public final class MapOutputFixture {
    public final java.nio.file.Path localDir;
    public final int maps;
    public final int reduces;
    public final int partitionBytes;
    public final Token<JobTokenIdentifier> token;
    public final SecretKey key;
    private final long[][] crcs;

    public MapOutputFixture(java.nio.file.Path localDir, int maps, int reduces, int partitionBytes) throws IOException {
        this.localDir = localDir;
        this.maps = maps;
        this.reduces = reduces;
        this.partitionBytes = partitionBytes;
        JobTokenSecretManager tokens = new JobTokenSecretManager();
        this.token = new Token<>(new JobTokenIdentifier(new Text(ShuffleWire.JOB)), tokens);
        this.key = JobTokenSecretManager.createSecretKey(token.getPassword());
        this.crcs = new long[maps][reduces];
        Random random = new Random(1);
        byte[] buf = new byte[partitionBytes];
        for (int m = 0; m < maps; m++) {
            java.nio.file.Path dir = outputFile(localDir, ShuffleWire.map(m)).getParent();
            Files.createDirectories(dir);
            SpillRecord index = new SpillRecord(reduces);
            try (OutputStream out = Files.newOutputStream(dir.resolve("file.out"))) {
                for (int r = 0; r < reduces; r++) {
                    random.nextBytes(buf);
                    CRC32C crc = new CRC32C();
                    crc.update(buf);
                    crcs[m][r] = crc.getValue();
                    out.write(buf);
                    index.putIndex(new IndexRecord((long) r * partitionBytes, partitionBytes * 2L, partitionBytes), r);
                }
            }
            index.writeToFile(new Path(dir.resolve("file.out.index").toUri()), new JobConf());
        }
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
        return mapIds(maps);
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
