package io.hadooptipc.shuffle.client;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Structure;
import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.ResponseReader;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.tipc.Testbed;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TIPC server's connection handling against a real kernel: pipelined requests,
 * garbage after a kept-alive request, reducers that stop reading, a full worker
 * queue and an acceptor out of file descriptors, with the handler in node n1 and
 * reducers in node n2.
 */
@Tag("tipc-kernel")
class ServerConnectionKernelTest {
    static final int MAPS = 4;
    static final int PARTITION = 4 << 20;
    static final int WRITE_TIMEOUT_MS = 10_000;
    static final String SERVER_IP = "10.210.0.1";

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static TipcShuffleHandler handler;
    static int port;

    @BeforeAll
    static void serve() throws Exception {
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        handler = Testbed.on("n1", () -> {
            YarnConfiguration conf = new YarnConfiguration();
            conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
            conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
            conf.setBoolean(ShuffleHandler.SHUFFLE_CONNECTION_KEEP_ALIVE_ENABLED, true);
            conf.setInt(TipcShuffleConfig.WRITE_TIMEOUT_MS, WRITE_TIMEOUT_MS);
            conf.setInt(TipcShuffleConfig.MAX_QUEUED_REQUESTS, 1);
            TipcShuffleHandler h = new TipcShuffleHandler();
            h.setAuxiliaryLocalPathHandler(outputs.localDirs());
            h.init(conf);
            h.start();
            h.initializeApplication(outputs.application());
            return h;
        });
        assertTrue(handler.isServingTipc(), "the handler in n1 serves TIPC");
        port = ShuffleHandler.deserializeMetaData(handler.getMetaData());
        Testbed.awaitPublished("n2", service(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() throws Exception {
        if (handler != null) {
            Testbed.on("n1", () -> {
                handler.stop();
                return null;
            });
        }
    }

    @Test
    void answersPipelinedRequestsInOrderAndGarbageAfterThemWith400() throws Exception {
        byte[] both = concat(request(0), request(1),
                "\u0000\u0001 not HTTP".getBytes(StandardCharsets.ISO_8859_1));
        try (Responses in = new Responses(connect())) {
            in.channel.writeFully(ByteBuffer.wrap(both));
            assertFrame(in.next(), 0);
            assertFrame(in.next(), 1);
            assertEquals(400, in.next().status(), "garbage after two kept-alive requests");
        }
    }

    @Test
    void aStalledReducerLosesItsWorkerWithinTheWriteTimeoutAndAFullQueueAnswers429() throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
        byte[] everything = ShuffleWire.request(uri, ShuffleWire.urlHash(uri, port, outputs.key), name().toString()).encode();
        try (Responses stalledA = new Responses(connect()); Responses stalledB = new Responses(connect());
             Responses queued = new Responses(connect())) {
            // Two reducers that never read hold both workers once the server has started writing to them.
            for (Responses stalled : new Responses[] {stalledA, stalledB}) {
                stalled.channel.writeFully(ByteBuffer.wrap(everything));
                assertTrue(stalled.channel.awaitReadable(60_000), "a worker answers");
            }
            queued.channel.writeFully(ByteBuffer.wrap(everything));
            Thread.sleep(2_000); // for the acceptor to queue it
            long start = System.nanoTime();

            CountingReporter reporter = new CountingReporter();
            TipcShuffleConnection refused = connection(uri, reporter);
            int status = Testbed.on("n2", () -> {
                refused.connect();
                return refused.getResponseCode();
            });
            assertEquals(429, status, "the queue (1) is full");
            assertEquals(1000, refused.getHeaderFieldLong("Retry-After", -1), "stock's back-off");
            assertEquals(name().toString(), refused.getHeaderField(TipcShuffleConfig.SERVER_HEADER));
            for (TipcShuffleCounter c : TipcShuffleCounter.values()) {
                if (c.name().startsWith("FALLBACK_")) {
                    assertEquals(0, reporter.get(c), c.name() + ": a 429 is the fetcher's to handle");
                }
            }
            refused.disconnect();

            ShuffleWire.Response served = queued.next();
            long waited = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertEquals(200, served.status());
            assertEquals(MAPS, served.frames().size());
            for (int m = 0; m < MAPS; m++) {
                assertFrame(served.frames().get(m), m);
            }
            assertTrue(waited < WRITE_TIMEOUT_MS + 30_000, "served " + waited + " ms after the stall");
            long whole = everything.length; // any response to it is far longer than this
            for (Responses stalled : new Responses[] {stalledA, stalledB}) {
                long got = stalled.drain();
                assertTrue(got > whole && got < (long) MAPS * PARTITION,
                        "the stalled connection was closed part-way: " + got + " bytes");
            }
        }
    }

    @Test
    void acceptOutOfFileDescriptorsBacksOffAndServesOnceItCan() throws Exception {
        TipcServiceAddress service = service();
        List<TipcSocketChannel> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // their descriptors exist before the limit drops; connecting needs none
            clients.add(Testbed.on("n2", TipcSocketChannel::open));
        }
        try {
            // Threads of n2 enter its namespace through a descriptor: have them ready before the limit drops.
            CountDownLatch ready = new CountDownLatch(clients.size());
            List<Future<Object>> warm = new ArrayList<>();
            for (int i = 0; i < clients.size(); i++) {
                warm.add(Testbed.start("n2", () -> {
                    ready.countDown();
                    ready.await();
                    return null;
                }));
            }
            for (Future<Object> f : warm) {
                Testbed.get(f);
            }
            RLimit saved = new RLimit();
            LIBC.getrlimit(RLIMIT_NOFILE, saved);
            List<Future<Boolean>> connects = new ArrayList<>();
            RLimit tight = new RLimit();
            tight.max = saved.max;
            tight.cur = lowestFreeDescriptor(); // a new descriptor takes the lowest free number: none is left
            LIBC.setrlimit(RLIMIT_NOFILE, tight);
            try {
                for (TipcSocketChannel c : clients) {
                    connects.add(Testbed.start("n2", () -> c.connect(service)));
                }
                Thread.sleep(2_000); // the acceptor meets EMFILE, more than once
            } finally {
                LIBC.setrlimit(RLIMIT_NOFILE, saved);
            }
            for (int i = 0; i < clients.size(); i++) {
                assertTrue(Testbed.get(connects.get(i)), "accepted once descriptors are free again");
                try (Responses in = new Responses(clients.get(i))) {
                    in.channel.writeFully(ByteBuffer.wrap(request(i)));
                    assertFrame(in.next(), i);
                }
            }
        } finally {
            for (TipcSocketChannel c : clients) {
                c.close();
            }
        }
    }

    /** The number the next descriptor would get: the kernel hands out the lowest free one. */
    private static long lowestFreeDescriptor() {
        int fd = LIBC.open("/dev/null", 0);
        LIBC.close(fd);
        return fd;
    }

    private static final int RLIMIT_NOFILE = 7;
    private static final LibC LIBC = Native.load("c", LibC.class);

    private interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        int getrlimit(int resource, RLimit limit) throws LastErrorException;

        int setrlimit(int resource, RLimit limit) throws LastErrorException;
    }

    @Structure.FieldOrder({"cur", "max"})
    public static final class RLimit extends Structure {
        public long cur;
        public long max;
    }

    private static TipcShuffleConnection connection(String uri, CountingReporter reporter) throws IOException {
        TransportRoutes routes = new TransportRoutes(Transport.AUTO, Tipc.availability(), new TransferCounters(reporter));
        TipcShuffleConnection c = new TipcShuffleConnection(new URL("http", SERVER_IP, port, uri), routes,
                new TipcStreamTransport(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), new TransferCounters(reporter));
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, ShuffleWire.urlHash(uri, port, outputs.key));
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        c.setReadTimeout(20_000);
        return c;
    }

    private static byte[] request(int map) throws IOException {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(map));
        return ShuffleWire.request(uri, ShuffleWire.urlHash(uri, port, outputs.key), name().toString()).encode();
    }

    private static void assertFrame(ShuffleWire.Response r, int map) {
        assertEquals(200, r.status(), r.text());
        assertEquals(1, r.frames().size());
        assertFrame(r.frames().get(0), map);
    }

    private static void assertFrame(ShuffleWire.Frame f, int map) {
        assertEquals(ShuffleWire.map(map), f.mapId());
        CRC32C crc = new CRC32C();
        crc.update(f.data());
        assertEquals(outputs.crc(map, 0), crc.getValue(), "map " + map);
    }

    private static TipcSocketChannel connect() throws Exception {
        TipcServiceAddress service = service();
        return Testbed.on("n2", () -> TipcSocketChannel.open(service));
    }

    private static ShuffleServiceName name() throws IOException {
        return ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);
    }

    private static TipcServiceAddress service() throws IOException {
        return name().tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE);
    }

    private static byte[] concat(byte[]... parts) {
        byte[] all = new byte[0];
        for (byte[] p : parts) {
            int at = all.length;
            all = Arrays.copyOf(all, at + p.length);
            System.arraycopy(p, 0, all, at, p.length);
        }
        return all;
    }

    /** Responses read one after another off one TIPC connection. */
    private static final class Responses implements AutoCloseable {
        final TipcSocketChannel channel;
        private final ResponseReader reader;

        Responses(TipcSocketChannel channel) {
            this.channel = channel;
            this.reader = new ResponseReader(dst -> {
                if (!channel.awaitReadable(60_000)) {
                    throw new SocketTimeoutException("nothing from the server for 60 s");
                }
                return channel.read(dst);
            });
        }

        ShuffleWire.Response next() throws IOException {
            return reader.next();
        }

        long drain() throws IOException {
            return reader.drain();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
