package io.hadooptipc.shuffle;

import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import javax.crypto.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds shuffle requests and takes shuffle responses apart, as a reducer would, for tests. */
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

    /** A request head as the stock fetcher sends it; null hash or target leaves the header out. */
    public static HttpHead request(String uri, String urlHash, String target) {
        return requestBuilder(uri, urlHash, target).build();
    }

    /** A request head as our fetcher sends it over TIPC with reuse on: asking for keep-alive by header. */
    public static HttpHead keepAliveRequest(String uri, String urlHash, String target) {
        return requestBuilder(uri, urlHash, target).field("Connection", "keep-alive").build();
    }

    private static HttpHead.Builder requestBuilder(String uri, String urlHash, String target) {
        HttpHead.Builder b = HttpHead.builder("GET " + uri + " HTTP/1.1")
                .field(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME)
                .field(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        if (urlHash != null) {
            b.field(SecureShuffleUtils.HTTP_HEADER_URL_HASH, urlHash);
        }
        if (target != null) {
            b.field(TipcShuffleConfig.TARGET_HEADER, target);
        }
        return b;
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
    public record Frame(String mapId, long rawLength, int reduce, byte[] data) {
    }

    /** A whole response: its head and, for 200, its frames; otherwise its text body. */
    public record Response(HttpHead head, int status, List<Frame> frames, String text) {
    }

    public static Response parse(byte[] bytes) throws IOException {
        int end = HttpHead.endOf(bytes, 0, bytes.length);
        if (end < 0) {
            throw new IOException("no complete response head in " + bytes.length + " bytes");
        }
        HttpHead head = HttpHead.parse(bytes, 0, end);
        int status = Integer.parseInt(head.startLine().split(" ")[1]);
        byte[] body = Arrays.copyOfRange(bytes, end, bytes.length);
        long length = Long.parseLong(head.field("Content-Length"));
        if (length != body.length) {
            throw new IOException("Content-Length " + length + " but " + body.length + " body bytes");
        }
        if (status != 200) {
            return new Response(head, status, List.of(), new String(body, StandardCharsets.UTF_8));
        }
        return new Response(head, status, frames(new ByteArrayInputStream(body)), null);
    }

    /** The map outputs of a 200 response's body, to its end. */
    public static List<Frame> frames(InputStream body) throws IOException {
        List<Frame> frames = new ArrayList<>();
        PushbackInputStream pushback = new PushbackInputStream(body, 1);
        DataInputStream in = new DataInputStream(pushback);
        for (int next; (next = pushback.read()) >= 0; ) {
            pushback.unread(next);
            String mapId = WritableUtils.readStringSafely(in, 1000);
            long compressed = WritableUtils.readVLong(in);
            long raw = WritableUtils.readVLong(in);
            int reduce = WritableUtils.readVInt(in);
            byte[] data = new byte[Math.toIntExact(compressed)];
            in.readFully(data);
            frames.add(new Frame(mapId, raw, reduce, data));
        }
        return frames;
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
