package io.hadooptipc.testbed;

import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.SecretKey;
import java.util.Objects;

/** Shuffle URLs, hashes and response bodies as a reducer and a NodeManager write and read them, for tests and benchmarks. */
public final class ShuffleWire {
    public static final String JOB = "job_1700000000000_0001";
    public static final String USER = System.getProperty("user.name");

    public static String map(int i) {
        return String.format("attempt_1700000000000_0001_m_%06d_0", i);
    }

    public static SecretKey key(String secret) {
        return JobTokenSecretManager.createSecretKey(secret.getBytes(StandardCharsets.UTF_8));
    }

    public static String uri(String job, int reduce, String... maps) {
        return "/mapOutput?job=" + job + "&reduce=" + reduce + "&map=" + String.join(",", maps);
    }

    /** The UrlHash a fetcher holding {@code key} sends for {@code uri} on a server's HTTP port. */
    public static String urlHash(String uri, int httpPort, SecretKey key) throws IOException {
        return SecureShuffleUtils.hashFromString(
                SecureShuffleUtils.buildMsgFrom(new URL("http", "localhost", httpPort, uri)), key);
    }

    /**
     * Sets on {@code c} the headers the stock fetcher sets for {@code uri} on a server's HTTP {@code port}, the
     * UrlHash under {@code key} among them, and a 60 s read timeout; returns the hash, to check the reply's against.
     */
    public static String sign(HttpURLConnection c, String uri, int port, SecretKey key) throws IOException {
        String hash = urlHash(uri, port, key);
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, hash);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        c.setReadTimeout(60_000);
        return hash;
    }

    /** A 200 response's body: each of {@code outputs}, as map {@code i}'s partition for {@code reduce}, framed as the server frames it. */
    public static byte[] body(int reduce, byte[]... outputs) throws IOException {
        Map<String, byte[]> byMap = new LinkedHashMap<>();
        for (int i = 0; i < outputs.length; i++) {
            byMap.put(map(i), outputs[i]);
        }
        return body(reduce, byMap);
    }

    /** A 200 response's body: each map's partition for {@code reduce}, in the map's order, framed as the server frames it. */
    public static byte[] body(int reduce, Map<String, byte[]> outputs) throws IOException {
        DataOutputBuffer out = new DataOutputBuffer();
        for (Map.Entry<String, byte[]> e : outputs.entrySet()) {
            new ShuffleHeader(e.getKey(), e.getValue().length, e.getValue().length, reduce).write(out);
            out.write(e.getValue());
        }
        return Arrays.copyOf(out.getData(), out.getLength());
    }

    /** One map output as framed in a response body. */
    public static final class Frame {
        private final String mapId;
        private final long rawLength;
        private final int reduce;
        private final byte[] data;

        public Frame(String mapId, long rawLength, int reduce, byte[] data) {
            this.mapId = mapId;
            this.rawLength = rawLength;
            this.reduce = reduce;
            this.data = data;
        }

        public String mapId() {
            return mapId;
        }

        public long rawLength() {
            return rawLength;
        }

        public int reduce() {
            return reduce;
        }

        public byte[] data() {
            return data;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Frame)) {
                return false;
            }
            Frame that = (Frame) o;
            return Objects.equals(mapId, that.mapId) && rawLength == that.rawLength && reduce == that.reduce
                    && Objects.equals(data, that.data);
        }

        @Override
        public int hashCode() {
            return Objects.hash(mapId, rawLength, reduce, data);
        }

        @Override
        public String toString() {
            return "Frame[mapId=" + mapId + ", rawLength=" + rawLength + ", reduce=" + reduce + ", data=" + data + "]";
        }
    }

    /** The map outputs of a 200 response's body, to its end. */
    public static List<Frame> frames(InputStream body) throws IOException {
        List<Frame> frames = new ArrayList<>();
        PushbackInputStream pushback = new PushbackInputStream(body, 1);
        DataInputStream in = new DataInputStream(pushback);
        for (int next; (next = pushback.read()) >= 0; ) {
            pushback.unread(next);
            frames.add(frame(in));
        }
        return frames;
    }

    /**
     * The next map output of a response's body, read as the stock fetcher reads it: a ShuffleHeader's fields
     * (ShuffleHeader.readFields, a varint a byte at a time), then the map output's bytes.
     */
    public static Frame frame(DataInputStream in) throws IOException {
        String mapId = WritableUtils.readStringSafely(in, 1000);
        long compressed = WritableUtils.readVLong(in);
        long raw = WritableUtils.readVLong(in);
        int reduce = WritableUtils.readVInt(in);
        byte[] data = new byte[Math.toIntExact(compressed)];
        in.readFully(data);
        return new Frame(mapId, raw, reduce, data);
    }

    private ShuffleWire() {
    }

    /** The parts one after another, as one write sends them. */
    public static byte[] concat(byte[]... parts) {
        byte[] all = new byte[0];
        for (byte[] p : parts) {
            int at = all.length;
            all = Arrays.copyOf(all, at + p.length);
            System.arraycopy(p, 0, all, at, p.length);
        }
        return all;
    }
}
