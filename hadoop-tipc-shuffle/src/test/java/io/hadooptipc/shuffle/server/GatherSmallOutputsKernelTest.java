package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ResponseReader;
import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GatherSmallOutputs} against a real kernel: our handler in node n1, a reducer's raw TIPC
 * stream in n2 asking for many small map outputs in one request. The server's write system calls are
 * the {@code syscw} the kernel counts for the server's event-loop threads ({@code /proc/self/task/N/io}).
 */
@Tag("tipc-kernel")
class GatherSmallOutputsKernelTest {
    static final int MAPS = 64;
    static final int PARTITION = 2048;
    static final String SERVER_IP = TestbedNetwork.node(1);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;

    @BeforeAll
    static void mapOutputs() throws IOException {
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
    }

    /** One response's bytes after its head, and the server's write system calls while it was answered. */
    private static final class Answer {
        private final byte[] body;
        private final long serverWrites;

        private Answer(byte[] body, long serverWrites) {
            this.body = body;
            this.serverWrites = serverWrites;
        }

        public byte[] body() {
            return body;
        }

        public long serverWrites() {
            return serverWrites;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Answer)) {
                return false;
            }
            Answer that = (Answer) o;
            return Objects.equals(body, that.body) && serverWrites == that.serverWrites;
        }

        @Override
        public int hashCode() {
            return Objects.hash(body, serverWrites);
        }

        @Override
        public String toString() {
            return "Answer[body=" + body + ", serverWrites=" + serverWrites + "]";
        }
    }

    @Test
    void aRequestForManySmallMapOutputsTakesFarFewerServerWritesGatheredAndGetsTheSameBytes() throws Exception {
        Answer stock = answer(0);
        Answer gathered = answer(TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES);

        assertArrayEquals(stock.body, gathered.body, "the same map outputs, byte for byte");
        List<ShuffleWire.Frame> frames = ShuffleWire.frames(new ByteArrayInputStream(gathered.body));
        assertEquals(MAPS, frames.size());
        for (int map = 0; map < MAPS; map++) {
            CRC32C crc = new CRC32C();
            crc.update(frames.get(map).data());
            assertEquals(ShuffleWire.map(map), frames.get(map).mapId());
            assertEquals(outputs.crc(map, 0), crc.getValue(), "map " + map);
        }
        System.out.printf("server write system calls for %d map outputs of %d bytes: %d gathered, %d as stock%n",
                MAPS, PARTITION, gathered.serverWrites, stock.serverWrites);
        assertTrue(stock.serverWrites >= MAPS, "stock writes each map output on its own: " + stock.serverWrites);
        assertTrue(gathered.serverWrites * 8 <= stock.serverWrites, "gathered: " + gathered.serverWrites
                + " write system calls for " + MAPS + " map outputs of " + PARTITION + " bytes, stock: " + stock.serverWrites);
    }

    /** Serves with {@code gatherMaxBytes} and asks, on one kept-alive stream, twice for every map output: the second is counted. */
    private static Answer answer(int gatherMaxBytes) throws Exception {
        YarnConfiguration conf = new YarnConfiguration();
        conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 1);
        // The wait for a request (stock's 5 s): a first request can take longer on a loaded testbed.
        conf.setInt(ShuffleHandler.SHUFFLE_CONNECTION_KEEP_ALIVE_TIME_OUT, 60);
        conf.setInt(TipcShuffleConfig.GATHER_MAX_BYTES, gatherMaxBytes);
        TipcShuffleHandler handler = outputs.serveIn("n1", TipcShuffleHandler::new, conf);
        try {
            assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
            int port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
            ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
            TipcServiceAddress service = name.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
            Testbed.on("n2", () -> Tipc.awaitPublished(service, Duration.ofSeconds(20)));
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
            try (TipcSocketChannel channel = Testbed.on("n2", () -> TipcSocketChannel.open(service))) {
                byte[] request = ShuffleHttp.boundKeepAliveRequest(uri, name.toString(), outputs.key,
                        channel.getPeerAddress().toString()).encode();
                ByteArrayOutputStream received = new ByteArrayOutputStream();
                ResponseReader responses = new ResponseReader(dst -> {
                    if (!channel.awaitReadable(60_000)) {
                        throw new SocketTimeoutException("nothing from the server for 60 s");
                    }
                    int n = channel.read(dst);
                    if (n > 0) {
                        received.write(dst.array(), dst.position() - n, n);
                    }
                    return n;
                });
                channel.writeFully(ByteBuffer.wrap(request));
                assertEquals(200, responses.next().status(), "warm-up");
                received.reset();
                long before = serverWrites();
                channel.writeFully(ByteBuffer.wrap(request));
                ShuffleHttp.Response response = responses.next();
                long writes = serverWrites() - before;
                assertEquals(200, response.status(), response.text());
                byte[] all = received.toByteArray();
                return new Answer(Arrays.copyOfRange(all, HttpHead.endOf(all, 0, all.length), all.length), writes);
            }
        } finally {
            MapOutputFixture.stopIn("n1", handler);
        }
    }

    /** Write system calls of this JVM's TIPC server threads so far (the kernel names a thread by its first 15 characters). */
    private static long serverWrites() throws IOException {
        long writes = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.collect(Collectors.toList())) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith(TipcShuffleServer.THREAD_NAME)) {
                        writes += syscw(Files.readAllLines(task.resolve("io")));
                    }
                } catch (NoSuchFileException ended) {
                    // a thread that ended meanwhile wrote nothing for this response
                }
            }
        }
        return writes;
    }

    private static long syscw(List<String> io) {
        for (String line : io) {
            if (line.startsWith("syscw:")) {
                return Long.parseLong(line.substring("syscw:".length()).trim());
            }
        }
        throw new IllegalStateException("no syscw in /proc/self/task/N/io: the kernel counts no system calls per task"
                + " (CONFIG_TASK_XACCT)");
    }
}
