package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleHttp;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GatherSmallOutputs} in the TIPC pipeline around stock's handler, on the host (Netty's epoll
 * transport on loopback TCP): requests for small map outputs answered as with gathering off, byte for byte,
 * and counted alike by the TIPC metrics, and one whose map-output file is cut short.
 */
class GatherPipelineTest {
    static final int MAPS = 40;
    static final int PARTITION = 3000;
    static final String ME = "10.0.0.1:13562";

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcPipelineTest.PipelineSource handler;
    static int httpPort;

    @BeforeAll
    static void mapOutputs() throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true);
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        handler = outputs.serve(new TipcPipelineTest.PipelineSource(), new YarnConfiguration(), 0);
        TipcPipelineTest.httpPort = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        httpPort = ShuffleHandler.deserializeMetaData(handler.getMetaData());
    }

    @AfterAll
    static void stopHandler() {
        handler.stop();
    }

    private static final class Answer {
        private final byte[] bytes;
        private final long outputsOk;
        private final long outputsFailed;
        private final long outputBytes;

        private Answer(byte[] bytes, long outputsOk, long outputsFailed, long outputBytes) {
            this.bytes = bytes;
            this.outputsOk = outputsOk;
            this.outputsFailed = outputsFailed;
            this.outputBytes = outputBytes;
        }

        public byte[] bytes() {
            return bytes;
        }

        public long outputsOk() {
            return outputsOk;
        }

        public long outputsFailed() {
            return outputsFailed;
        }

        public long outputBytes() {
            return outputBytes;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Answer)) {
                return false;
            }
            Answer that = (Answer) o;
            return Objects.equals(bytes, that.bytes) && outputsOk == that.outputsOk
                    && outputsFailed == that.outputsFailed && outputBytes == that.outputBytes;
        }

        @Override
        public int hashCode() {
            return Objects.hash(bytes, outputsOk, outputsFailed, outputBytes);
        }

        @Override
        public String toString() {
            return "Answer[bytes=" + bytes + ", outputsOk=" + outputsOk + ", outputsFailed=" + outputsFailed
                    + ", outputBytes=" + outputBytes + "]";
        }
    }

    @Test
    void smallMapOutputsGatheredAreAnsweredAsStockAnswersThem() throws Exception {
        int[] all = new int[MAPS];
        Arrays.setAll(all, i -> i);
        // Below the threshold of 4,000 bytes the maps' 3,000-byte outputs are gathered, 2 per flush at most.
        assertServedAlike(all, 4_000);
        // And with the default, all in one gathered write.
        assertServedAlike(all, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES);
        // Smaller than the outputs: each goes as stock sends it.
        assertServedAlike(new int[] {3, 1, 2}, 1_000);
    }

    @Test
    void aMapOutputCutShortClosesTheConnectionAfterThoseBeforeIt() throws Exception {
        Path cut = MapOutputFixture.outputFile(local, ShuffleWire.map(MAPS - 1));
        byte[] whole = Files.readAllBytes(cut);
        Files.write(cut, new byte[0]);
        try {
            int[] maps = {0, 1, MAPS - 1, 2};
            Answer stock = answer(maps, 0);
            Answer gathered = answer(maps, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES);
            // Stock's header of the map output cut short went out before its file failed; ours does not.
            assertTrue(gathered.bytes.length < stock.bytes.length, "gathered: " + gathered.bytes.length + " bytes");
            assertArrayEquals(Arrays.copyOf(stock.bytes, gathered.bytes.length), gathered.bytes);
            int end = HttpHead.endOf(gathered.bytes, 0, gathered.bytes.length);
            assertEquals(2, ShuffleWire.frames(new ByteArrayInputStream(gathered.bytes, end, gathered.bytes.length - end))
                    .size(), "the map outputs before it, whole");
            assertEquals(2, gathered.outputsOk);
            assertEquals(1, gathered.outputsFailed);
            assertEquals(stock.outputsFailed, gathered.outputsFailed);
        } finally {
            Files.write(cut, whole);
        }
    }

    private static void assertServedAlike(int[] maps, int gatherMaxBytes) throws Exception {
        Answer stock = answer(maps, 0);
        Answer gathered = answer(maps, gatherMaxBytes);
        assertArrayEquals(stock.bytes, gathered.bytes, "gathered up to " + gatherMaxBytes + " bytes");
        ShuffleHttp.Response r = ShuffleHttp.parse(gathered.bytes);
        assertEquals(200, r.status(), r.text());
        assertEquals(maps.length, r.frames().size());
        assertEquals(maps.length, gathered.outputsOk);
        assertEquals((long) maps.length * PARTITION, gathered.outputBytes);
    }

    /** Everything the server sends for one request of {@code maps} until it closes or the response ends. */
    private static Answer answer(int[] maps, int gatherMaxBytes) throws Exception {
        TipcShuffleMetrics metrics = new TipcShuffleMetrics();
        EventLoopGroup loops = new EpollEventLoopGroup(1);
        try {
            Channel listener = new ServerBootstrap().group(loops).channel(EpollServerSocketChannel.class)
                    .childHandler(new TipcShuffleChannelInitializer(handler.pipeline(), Set.of(ME), metrics, 60_000,
                            60_000, 0, gatherMaxBytes, handler.tokens(), TipcPipelineTest.LOOPBACK_PORT))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, Arrays.stream(maps).mapToObj(ShuffleWire::map)
                    .toArray(String[]::new));
            byte[] request = ShuffleHttp.boundRequest(uri, ShuffleWire.urlHash(uri, httpPort, outputs.key), ME,
                    outputs.key, "tcp:" + port).encode();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write(request);
                InputStream in = s.getInputStream();
                byte[] buf = new byte[1 << 16];
                for (int n; !complete(got.toByteArray()) && (n = in.read(buf)) > 0; ) {
                    got.write(buf, 0, n);
                }
            }
            listener.close().sync();
            // Each answer's reply binding is of its own request's nonce: the rest must be stock's, byte for byte.
            String text = new String(got.toByteArray(), StandardCharsets.ISO_8859_1)
                    .replaceFirst(ChannelBinding.REPLY_HEADER + ": [^\r]*\r\n", "");
            return new Answer(text.getBytes(StandardCharsets.ISO_8859_1), metrics.outputsOk(), metrics.outputsFailed(),
                    metrics.outputBytes());
        } finally {
            loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static boolean complete(byte[] bytes) throws IOException {
        int end = HttpHead.endOf(bytes, 0, bytes.length);
        return end >= 0 && bytes.length - end >= Long.parseLong(HttpHead.parse(bytes, 0, end).field("Content-Length"));
    }
}
