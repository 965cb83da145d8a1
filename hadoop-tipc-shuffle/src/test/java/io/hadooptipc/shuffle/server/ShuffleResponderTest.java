package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static io.hadooptipc.shuffle.ShuffleWire.JOB;
import static io.hadooptipc.shuffle.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShuffleResponderTest {
    private static final int PORT = 13562;
    private static final String SELF = "10.0.0.1:" + PORT;
    private static final int OFFSET = 7; // partitions never start at 0 in a real spill file

    @TempDir
    Path dir;

    private final SecretKey key = ShuffleWire.key("job token secret");
    private final Map<String, byte[]> partitions = new HashMap<>();
    private final TipcShuffleMetrics metrics = new TipcShuffleMetrics();
    private MapOutputStore store;
    private JobRegistry jobs;
    private ShuffleResponder responder;

    @BeforeEach
    void outputs() throws IOException {
        Random random = new Random(42);
        for (int i = 0; i < 3; i++) {
            byte[] data = new byte[1000 + 5000 * i];
            random.nextBytes(data);
            partitions.put(map(i), data);
            byte[] file = new byte[OFFSET + data.length + 11];
            System.arraycopy(data, 0, file, OFFSET, data.length);
            Files.write(dir.resolve(map(i)), file);
        }
        store = (job, user, mapId, reduce) -> {
            byte[] data = partitions.get(mapId);
            if (data == null) {
                throw new FileNotFoundException("no output for " + mapId);
            }
            return new MapOutputStore.Partition(dir.resolve(mapId).toFile(), OFFSET, data.length, data.length * 2L);
        };
        jobs = new JobRegistry() {
            @Override
            public SecretKey secret(String jobId) throws IOException {
                if (!jobId.equals(JOB)) {
                    throw new IOException("unknown job " + jobId);
                }
                return key;
            }

            @Override
            public String user(String jobId) {
                return ShuffleWire.USER;
            }
        };
        responder = new ShuffleResponder(jobs, store, Set.of(SELF),
                new ShuffleResponder.Settings(PORT, false, 5, false, 0), metrics);
    }

    @Test
    void servesEveryMapWithTheStockFramingAndReplyHash() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(2), map(0));
        String hash = ShuffleWire.urlHash(uri, PORT, key);
        Captured out = new Captured();

        boolean keepAlive = responder.respond(ShuffleWire.request(uri, hash, SELF), out);

        ShuffleWire.Response r = ShuffleWire.parse(out.bytes());
        assertEquals(200, r.status());
        assertFalse(keepAlive);
        assertEquals("close", r.head().field("Connection"));
        assertEquals(SELF, r.head().field(TipcShuffleConfig.SERVER_HEADER));
        SecureShuffleUtils.verifyReply(r.head().field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, key);
        assertEquals(2, r.frames().size());
        assertEquals(map(2), r.frames().get(0).mapId());
        assertArrayEquals(partitions.get(map(2)), r.frames().get(0).data());
        assertEquals(partitions.get(map(2)).length * 2L, r.frames().get(0).rawLength());
        assertEquals(map(0), r.frames().get(1).mapId());
        assertArrayEquals(partitions.get(map(0)), r.frames().get(1).data());
        assertEquals(2, metrics.outputsOk());
        assertEquals(partitions.get(map(2)).length + partitions.get(map(0)).length, metrics.outputBytes());
    }

    @Test
    void keepAliveParameterKeepsTheConnection() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(1)) + "&keepAlive=true";
        Captured out = new Captured();
        assertTrue(responder.respond(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, key), null), out));
        ShuffleWire.Response r = ShuffleWire.parse(out.bytes());
        assertEquals("keep-alive", r.head().field("Connection"));
        assertEquals("timeout=5", r.head().field("Keep-Alive"));
        assertEquals(SELF, r.head().field(TipcShuffleConfig.SERVER_HEADER));
    }

    @Test
    void connectionKeepAliveKeepsTheConnectionOfTheSameSignedUrl() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(1));
        String hash = ShuffleWire.urlHash(uri, PORT, key);
        Captured closing = new Captured();
        assertFalse(responder.respond(ShuffleWire.request(uri, hash, null), closing), "keep-alive is off by default");
        assertEquals("close", ShuffleWire.parse(closing.bytes()).head().field("Connection"));

        Captured kept = new Captured();
        assertTrue(responder.respond(ShuffleWire.keepAliveRequest(uri, hash, null), kept));
        ShuffleWire.Response r = ShuffleWire.parse(kept.bytes());
        assertEquals(200, r.status());
        assertEquals("keep-alive", r.head().field("Connection"));
        assertEquals("timeout=5", r.head().field("Keep-Alive"), "stock's keep-alive timeout");
        SecureShuffleUtils.verifyReply(r.head().field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, key);
    }

    @Test
    void missingHashGetsUnauthorizedAndNoMapBytes() throws Exception {
        assertRefused(ShuffleWire.request(ShuffleWire.uri(JOB, 0, map(0)), null, SELF), 401);
    }

    @Test
    void hashOfAnotherUrlIsRejected() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        String hashOfOtherMaps = ShuffleWire.urlHash(ShuffleWire.uri(JOB, 0, map(1)), PORT, key);
        assertRefused(ShuffleWire.request(uri, hashOfOtherMaps, SELF), 401);
    }

    @Test
    void anotherJobsTokenIsRejected() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        assertRefused(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, ShuffleWire.key("other job")), SELF), 401);
    }

    @Test
    void hashForAnotherPortIsRejected() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        assertRefused(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT + 1, key), SELF), 401);
    }

    @Test
    void unknownJobIsRejected() throws Exception {
        String uri = ShuffleWire.uri("job_1700000000000_0002", 0, "attempt_1700000000000_0002_m_000000_0");
        assertRefused(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, key), SELF), 401);
    }

    @Test
    void missingMapOutputIsAServerErrorBeforeAnyByte() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0), map(9));
        ShuffleWire.Response r = assertRefused(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, key), SELF), 500);
        assertTrue(r.text().contains("no output for " + map(9)), r.text());
    }

    @Test
    void requestForAnotherServerIsMisdirected() throws Exception {
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        assertRefused(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, key), "10.0.0.2:" + PORT), 421);
    }

    @Test
    void traversalInIdsIsABadRequest() throws Exception {
        String uri = "/mapOutput?job=" + JOB + "&reduce=0&map=../../../etc/passwd";
        assertRefused(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, key), SELF), 400);
    }

    @Test
    void refusalsOfTheServerNameItAndCarryRetryAfter() throws Exception {
        for (int status : new int[] {400, 429, 431}) {
            Captured out = new Captured();
            responder.sendError(out, null, status, "refused", status == 429 ? 1000L : null);
            ShuffleWire.Response r = ShuffleWire.parse(out.bytes());
            assertEquals(status, r.status());
            assertEquals(SELF, r.head().field(TipcShuffleConfig.SERVER_HEADER), "status " + status);
            assertEquals(status == 429 ? "1000" : null, r.head().field("Retry-After"));
        }
    }

    @Test
    void withoutATargetTheServerNamesItselfTheSameWayEveryTime() throws Exception {
        List<String> names = new ArrayList<>(List.of("192.168.1.5:" + PORT, "127.0.0.1:" + PORT,
                "[fd00:0:0:0:0:0:0:7]:" + PORT, "10.0.0.1:" + PORT, "172.16.0.3:" + PORT));
        String uri = ShuffleWire.uri(JOB, 0, map(0));
        for (int i = 0; i < names.size(); i++) {
            Collections.rotate(names, 1);
            ShuffleResponder r = new ShuffleResponder(jobs, store, new LinkedHashSet<>(names),
                    new ShuffleResponder.Settings(PORT, false, 5, false, 0), metrics);
            Captured out = new Captured();
            r.respond(ShuffleWire.request(uri, ShuffleWire.urlHash(uri, PORT, key), null), out);
            assertEquals("10.0.0.1:" + PORT, ShuffleWire.parse(out.bytes()).head().field(TipcShuffleConfig.SERVER_HEADER),
                    "the first in string order, whatever the order the names came in");
        }
    }

    private ShuffleWire.Response assertRefused(HttpHead request, int status) throws Exception {
        Captured out = new Captured();
        assertFalse(responder.respond(request, out));
        ShuffleWire.Response r = ShuffleWire.parse(out.bytes());
        assertEquals(status, r.status());
        assertEquals("close", r.head().field("Connection"));
        assertEquals(SELF, r.head().field(TipcShuffleConfig.SERVER_HEADER), "an error names its server too");
        assertEquals(0, metrics.outputBytes());
        assertEquals(1, metrics.requestsRejected());
        for (byte[] data : partitions.values()) { // not one map's bytes in the answer
            assertEquals(-1, indexOf(out.bytes(), data), "map output bytes leaked into a " + status);
        }
        return r;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + 16 <= haystack.length; i++) {
            for (int j = 0; j < 16; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A response stream into memory; sendFile reads the file, as sendfile(2) would. */
    static final class Captured implements ResponseStream {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        @Override
        public void writeFully(ByteBuffer bytes) {
            byte[] b = new byte[bytes.remaining()];
            bytes.get(b);
            out.writeBytes(b);
        }

        @Override
        public void sendFile(FileDescriptor file, long position, long count) throws IOException {
            FileChannel ch = new FileInputStream(file).getChannel();
            ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(count));
            while (buf.hasRemaining()) {
                if (ch.read(buf, position + buf.position()) < 0) {
                    throw new IOException("file too short");
                }
            }
            out.writeBytes(buf.array());
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
