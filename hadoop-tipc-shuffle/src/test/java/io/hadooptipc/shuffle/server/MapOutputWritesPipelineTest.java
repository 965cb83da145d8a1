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
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.hadoop.mapred.FadvisedFileRegion;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handlers of map-output writes in the TIPC pipeline around stock's handler, on the host (Netty's epoll
 * transport on loopback TCP): {@link GatherSmallOutputs}, requests for small map outputs answered as with
 * gathering off, byte for byte, and counted alike by the TIPC metrics, and one whose map-output file is cut
 * short; {@link EndAtLargeOutput}, a response ended at the header of a map output the reducer takes over HTTP/TCP;
 * stock's advice to the kernel to drop a sent map output from its cache, which it never gives, gathered or not.
 */
class MapOutputWritesPipelineTest {
    static final int MAPS = 40;
    static final int PARTITION = 3000;
    /** About the size of map {@value #MAPS}'s partition (IFile records), after the others' of {@value #PARTITION} bytes. */
    static final int LARGE_PARTITION = 40_000;
    /** A reducer's mapreduce.shuffle.tipc.tcp.above-bytes between the two sizes. */
    static final long TCP_ABOVE = 32_768;
    static final String ME = "10.0.0.1:13562";

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcPipelineTest.PipelineSource handler;
    static int httpPort;

    @BeforeAll
    static void mapOutputs(@TempDir Path largeDir) throws Exception {
        DefaultMetricsSystem.setMiniClusterMode(true);
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        String large = ShuffleWire.map(MAPS);
        MapOutputFixture.ofRecords(largeDir, List.of(large), 1, LARGE_PARTITION, new byte[] {1});
        Path from = MapOutputFixture.outputFile(largeDir, large).getParent();
        Path to = MapOutputFixture.outputFile(local, large).getParent();
        Files.createDirectories(to);
        for (String file : new String[] {"file.out", "file.out.index"}) {
            Files.copy(from.resolve(file), to.resolve(file));
        }
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
        private final long outputsLeftForTcp;

        private Answer(byte[] bytes, long outputsOk, long outputsFailed, long outputBytes, long outputsLeftForTcp) {
            this.bytes = bytes;
            this.outputsOk = outputsOk;
            this.outputsFailed = outputsFailed;
            this.outputBytes = outputBytes;
            this.outputsLeftForTcp = outputsLeftForTcp;
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
            return Arrays.equals(bytes, that.bytes) && outputsOk == that.outputsOk
                    && outputsFailed == that.outputsFailed && outputBytes == that.outputBytes
                    && outputsLeftForTcp == that.outputsLeftForTcp;
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(bytes), outputsOk, outputsFailed, outputBytes, outputsLeftForTcp);
        }

        @Override
        public String toString() {
            return "Answer[bytes=" + bytes + ", outputsOk=" + outputsOk + ", outputsFailed=" + outputsFailed
                    + ", outputBytes=" + outputBytes + ", outputsLeftForTcp=" + outputsLeftForTcp + "]";
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
            Answer stock = answer(maps, 0, null);
            Answer gathered = answer(maps, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, null);
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

    @Test
    void aResponseEndsAtTheHeaderOfTheFirstMapOutputAboveTheReducersThresholdTheRestCountedUnsent() throws Exception {
        int[] maps = {0, 1, MAPS, 2};
        Answer whole = answer(maps, 0, null);
        for (int gatherMaxBytes : new int[] {0, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES}) {
            Answer ended = answer(maps, gatherMaxBytes, Long.toString(TCP_ABOVE));
            int end = HttpHead.endOf(whole.bytes, 0, whole.bytes.length);
            List<ShuffleWire.Frame> frames = ShuffleWire.frames(
                    new ByteArrayInputStream(whole.bytes, end, whole.bytes.length - end));
            int largeHeaderEnd = whole.bytes.length - frames.get(2).data().length - framedLength(frames.get(3));
            assertArrayEquals(Arrays.copyOf(whole.bytes, largeHeaderEnd), ended.bytes,
                    "gathered up to " + gatherMaxBytes + ": the outputs before the large one, then its header, then the close");
            assertEquals(2, ended.outputsOk);
            assertEquals(2L * PARTITION, ended.outputBytes);
            assertEquals(0, ended.outputsFailed, "stock ends the response as one sent in full");
            assertEquals(2, ended.outputsLeftForTcp, "the large one and the one after it");
        }
        assertEquals(0, whole.outputsLeftForTcp);
    }

    /** A frame's bytes in a response body: its ShuffleHeader and its map output. */
    private static int framedLength(ShuffleWire.Frame frame) throws IOException {
        DataOutputBuffer header = new DataOutputBuffer();
        new ShuffleHeader(frame.mapId(), frame.data().length, frame.rawLength(), frame.reduce()).write(header);
        return header.getLength() + frame.data().length;
    }

    @Test
    void aRequestWhoseThresholdIsNoneOrNoByteCountOrAboveEveryOutputIsAnsweredInFull() throws Exception {
        int[] maps = {0, MAPS, 1};
        Answer whole = answer(maps, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, null);
        assertEquals(3, whole.outputsOk);
        for (String threshold : new String[] {"0", "-5", "many", Long.toString(2L * LARGE_PARTITION)}) {
            assertEquals(whole, answer(maps, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, threshold), threshold);
        }
    }

    /**
     * Stock's listener advises the kernel to drop a map output it sent from the page cache only while the output's
     * file is open, and Netty closes a region's file before completing its write, so stock never advises: gathering
     * a map output, or leaving it for HTTP/TCP, closes its file earlier and costs the reducers no advice stock gives.
     */
    @Test
    void noMapOutputIsAdvisedOutOfTheCacheWhetherStockSendsItOrNot() throws Exception {
        AtomicInteger dropAdvised = new AtomicInteger();
        NativeIO.POSIX.CacheManipulator kernel = NativeIO.POSIX.getCacheManipulator();
        // Stock advises through this hook whether or not libhadoop is loaded; the default one needs libhadoop.
        NativeIO.POSIX.setCacheManipulator(new NativeIO.POSIX.CacheManipulator() {
            @Override
            public void posixFadviseIfPossible(String identifier, FileDescriptor fd, long offset, long len, int flags) {
                if (flags == NativeIO.POSIX.POSIX_FADV_DONTNEED) {
                    dropAdvised.incrementAndGet();
                }
            }
        });
        try {
            Path output = MapOutputFixture.outputFile(local, ShuffleWire.map(0));
            try (RandomAccessFile file = new RandomAccessFile(output.toFile(), "r")) {
                new FadvisedFileRegion(file, 0, PARTITION, true, 0, null, output.toString(), 65_536, true)
                        .transferSuccessful();
            }
            assertEquals(1, dropAdvised.get(), "a region whose file is open is advised");
            int[] maps = {0, 1, MAPS, 2};
            // gather.max-bytes and the request's threshold: stock sends 4, 1, 2, none and none of the 4 from their files
            Object[][] cases = {
                {0, null},
                {4_000, null},
                {0, Long.toString(TCP_ABOVE)},
                {TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, null},
                {TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES, Long.toString(TCP_ABOVE)},
            };
            for (Object[] c : cases) {
                dropAdvised.set(0);
                assertTrue(answer(maps, (Integer) c[0], (String) c[1]).outputsOk > 0);
                assertEquals(0, dropAdvised.get(), "gathered up to " + c[0] + " bytes, TCP above " + c[1]);
            }
        } finally {
            NativeIO.POSIX.setCacheManipulator(kernel);
        }
    }

    private static void assertServedAlike(int[] maps, int gatherMaxBytes) throws Exception {
        Answer stock = answer(maps, 0, null);
        Answer gathered = answer(maps, gatherMaxBytes, null);
        assertArrayEquals(stock.bytes, gathered.bytes, "gathered up to " + gatherMaxBytes + " bytes");
        ShuffleHttp.Response r = ShuffleHttp.parse(gathered.bytes);
        assertEquals(200, r.status(), r.text());
        assertEquals(maps.length, r.frames().size());
        assertEquals(maps.length, gathered.outputsOk);
        assertEquals((long) maps.length * PARTITION, gathered.outputBytes);
    }

    /**
     * Everything the server sends for one request of {@code maps} until it closes or the response ends; the request
     * carries {@code tcpAbove} as our reducer's threshold unless it is null.
     */
    private static Answer answer(int[] maps, int gatherMaxBytes, String tcpAbove) throws Exception {
        TipcShuffleMetrics metrics = new TipcShuffleMetrics();
        EventLoopGroup loops = new EpollEventLoopGroup(1);
        try {
            Channel listener = new ServerBootstrap().group(loops).channel(EpollServerSocketChannel.class)
                    .childHandler(new TipcShuffleChannelInitializer(handler.pipeline(), Set.of(ME), metrics, 60_000,
                            60_000, 0, gatherMaxBytes, handler.tokens(), TipcPipelineTest.LOOPBACK_PORT,
                            httpPort))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, Arrays.stream(maps).mapToObj(ShuffleWire::map)
                    .toArray(String[]::new));
            byte[] request = (tcpAbove == null
                    ? ShuffleHttp.boundRequest(uri, ME, outputs.key, "tcp:" + port)
                    : ShuffleHttp.boundRequest(uri, ME, outputs.key, "tcp:" + port,
                            TipcShuffleConfig.TCP_ABOVE_HEADER, tcpAbove)).encode();
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
                    metrics.outputBytes(), metrics.outputsLeftForTcp());
        } finally {
            loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static boolean complete(byte[] bytes) throws IOException {
        int end = HttpHead.endOf(bytes, 0, bytes.length);
        return end >= 0 && bytes.length - end >= Long.parseLong(HttpHead.parse(bytes, 0, end).field("Content-Length"));
    }
}
