package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.Readiness;
import io.hadooptipc.shuffle.ResponseReader;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.SecretKey;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TipcShuffleServer}'s connection handling on the host: its selector loop,
 * workers, write timeout and refusals run unchanged over AF_UNIX sockets, with the real
 * responder reading map outputs from the NodeManager's layout.
 */
class TipcShuffleServerTest {
    private static final int PORT = 13562;
    private static final String SELF = "10.0.0.1:" + PORT;
    private static final int MAPS = 4;
    private static final int PARTITION = 4 << 20; // far more than a socket's buffers hold
    private static final int WRITE_TIMEOUT_MS = 3000;
    private static final Duration LIMIT = Duration.ofSeconds(40);

    @TempDir
    static Path local;
    static MapOutputFixture outputs;

    @TempDir
    Path sockets;
    private final TipcShuffleMetrics metrics = new TipcShuffleMetrics();
    private UnixServerTransport transport;
    private TipcShuffleServer server;

    @BeforeAll
    static void mapOutputs() throws IOException {
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    @RepeatedTest(20) // the 400 races the reducer's reading of the second response
    void answersPipelinedRequestsInOrderAndGarbageAfterThemWith400() {
        assertTimeoutPreemptively(LIMIT, () -> {
            serve(2, 8);
            try (Reducer reducer = new Reducer()) {
                reducer.send(concat(request(0), request(1), "\u0000\u0001 not HTTP".getBytes(StandardCharsets.ISO_8859_1)));
                assertFrame(reducer.responses.next(), 0);
                assertFrame(reducer.responses.next(), 1);
                ShuffleWire.Response refusal = reducer.responses.next();
                assertEquals(400, refusal.status(), "garbage after two kept-alive requests");
                assertEquals(SELF, refusal.head().field(TipcShuffleConfig.SERVER_HEADER));
            }
        });
    }

    @Test
    void anotherReducerIsServedWhileOneStopsReadingAndTheStalledOneIsClosedAfterTheWriteTimeout() {
        assertTimeoutPreemptively(LIMIT, () -> {
            serve(2, 8);
            try (Reducer stalled = new Reducer(); Reducer other = new Reducer()) {
                long stalledAt = stall(stalled);
                other.send(request(0));
                assertFrame(other.responses.next(), 0);
                long servedAfter = millisSince(stalledAt);
                assertTrue(servedAfter < WRITE_TIMEOUT_MS, "served " + servedAfter + " ms after the stall: not meanwhile");
                assertClosedPartWay(stalled, stalledAt);
            }
        });
    }

    @Test
    void aStalledReducerFreesTheOnlyWorkerWithinTheWriteTimeout() {
        assertTimeoutPreemptively(LIMIT, () -> {
            serve(1, 8);
            try (Reducer stalled = new Reducer(); Reducer queued = new Reducer()) {
                long stalledAt = stall(stalled);
                queued.send(request(1));
                assertFrame(queued.responses.next(), 1);
                long servedAfter = millisSince(stalledAt);
                assertTrue(servedAfter >= WRITE_TIMEOUT_MS - 100 && servedAfter < WRITE_TIMEOUT_MS + 10_000,
                        "the queued request was served " + servedAfter + " ms after the stall");
                assertClosedPartWay(stalled, stalledAt);
            }
        });
    }

    @Test
    void aRequestBeyondAFullQueueGets429WithRetryAfterAndTheServersName() {
        assertTimeoutPreemptively(LIMIT, () -> {
            serve(1, 1);
            try (Reducer stalled = new Reducer(); Reducer queued = new Reducer(); Reducer refused = new Reducer()) {
                stall(stalled);
                queued.send(request(2));
                Thread.sleep(500); // for the acceptor to queue it
                refused.send(request(3));
                ShuffleWire.Response r = refused.responses.next();
                assertEquals(429, r.status());
                assertEquals("1000", r.head().field("Retry-After"), "stock's back-off");
                assertEquals(SELF, r.head().field(TipcShuffleConfig.SERVER_HEADER));
                assertFrame(queued.responses.next(), 2);
            }
        });
    }

    private void serve(int workers, int maxQueued) throws IOException {
        transport = UnixServerTransport.listen(sockets.resolve("shuffle"));
        JobRegistry jobs = new JobRegistry() {
            @Override
            public SecretKey secret(String jobId) throws IOException {
                if (!jobId.equals(ShuffleWire.JOB)) {
                    throw new IOException("unknown job " + jobId);
                }
                return outputs.key;
            }

            @Override
            public String user(String jobId) {
                return ShuffleWire.USER;
            }
        };
        ShuffleResponder responder = new ShuffleResponder(jobs,
                new LocalMapOutputStore(outputs.localDirs()::getLocalPathForRead, new JobConf()), Set.of(SELF),
                new ShuffleResponder.Settings(PORT, true, 30, false, 0), metrics);
        server = TipcShuffleServer.start(responder, metrics,
                new TipcShuffleServer.Settings(0, workers, maxQueued, 64 * 1024, 30_000, WRITE_TIMEOUT_MS), transport);
    }

    /** Asks for every map output and reads nothing; returns when the server has begun answering. */
    private static long stall(Reducer reducer) throws IOException {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
        reducer.send(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, outputs.key), SELF).encode());
        assertTrue(Readiness.await(reducer.channel, SelectionKey.OP_READ, 30_000), "a worker answers");
        return System.nanoTime();
    }

    /** Once the write timeout has passed, the stalled connection holds less than the whole response, then ends. */
    private static void assertClosedPartWay(Reducer stalled, long stalledAt) throws Exception {
        Thread.sleep(Math.max(0, WRITE_TIMEOUT_MS + 1000 - millisSince(stalledAt))); // reading earlier would unstall it
        long got = stalled.responses.drain();
        assertTrue(got > 0 && got < (long) MAPS * PARTITION, "closed part-way: " + got + " bytes");
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private static byte[] request(int map) throws IOException {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(map));
        return ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, outputs.key), SELF).encode();
    }

    private static void assertFrame(ShuffleWire.Response r, int map) {
        assertEquals(200, r.status(), r.text());
        assertEquals(1, r.frames().size());
        assertEquals(ShuffleWire.map(map), r.frames().get(0).mapId());
        CRC32C crc = new CRC32C();
        crc.update(r.frames().get(0).data());
        assertEquals(outputs.crc(map, 0), crc.getValue(), "map " + map);
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuffer all = ByteBuffer.allocate(java.util.Arrays.stream(parts).mapToInt(p -> p.length).sum());
        for (byte[] p : parts) {
            all.put(p);
        }
        return all.array();
    }

    /** A reducer's connection: requests out, responses in, each wait bounded. */
    private final class Reducer implements AutoCloseable {
        final SocketChannel channel;
        final ResponseReader responses;

        Reducer() throws IOException {
            channel = transport.connect();
            channel.configureBlocking(false);
            responses = new ResponseReader(dst -> {
                int n;
                while ((n = channel.read(dst)) == 0) {
                    if (!Readiness.await(channel, SelectionKey.OP_READ, 30_000)) {
                        throw new SocketTimeoutException("nothing from the server for 30 s");
                    }
                }
                return n;
            });
        }

        void send(byte[] bytes) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                if (channel.write(b) == 0) {
                    Readiness.await(channel, SelectionKey.OP_WRITE, 30_000);
                }
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
