package io.hadooptipc.shuffle;

import io.hadooptipc.testbed.ShuffleWire;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import javax.crypto.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Shuffle requests and responses as HTTP heads ({@link HttpHead}) on a raw connection, for tests. */
public final class ShuffleHttp {
    private ShuffleHttp() {
    }

    /** A request head as the stock fetcher sends it; null hash or target leaves the header out. */
    public static HttpHead request(String uri, String urlHash, String target) {
        return requestBuilder(uri, urlHash, target).build();
    }

    /**
     * A request head as our fetcher sends it over TIPC: without a UrlHash, bound with the job token {@code key} to
     * {@code server}, the server socket the kernel connected it to ({@link ChannelBinding}).
     */
    public static HttpHead boundRequest(String uri, String target, SecretKey key, String server) {
        return bound(requestBuilder(uri, null, target), uri, key, server);
    }

    /** {@link #boundRequest} with one more field, {@code name: value}. */
    public static HttpHead boundRequest(String uri, String target, SecretKey key, String server, String name,
                                        String value) {
        return bound(requestBuilder(uri, null, target).field(name, value), uri, key, server);
    }

    /** {@link #boundRequest} asking for keep-alive, as our fetcher does with reuse on. */
    public static HttpHead boundKeepAliveRequest(String uri, String target, SecretKey key, String server) {
        return bound(requestBuilder(uri, null, target).field("Connection", "keep-alive"), uri, key, server);
    }

    private static HttpHead bound(HttpHead.Builder request, String uri, SecretKey key, String server) {
        String nonce = ChannelBinding.nonce();
        return request.field(ChannelBinding.NONCE_HEADER, nonce)
                .field(ChannelBinding.REQUEST_HEADER, ChannelBinding.request(key, uri, nonce, server)).build();
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

    /** A whole response: its head and, for 200, its frames; otherwise its text body. */
    public static final class Response {
        private final HttpHead head;
        private final int status;
        private final List<ShuffleWire.Frame> frames;
        private final String text;

        public Response(HttpHead head, int status, List<ShuffleWire.Frame> frames, String text) {
            this.head = head;
            this.status = status;
            this.frames = frames;
            this.text = text;
        }

        public HttpHead head() {
            return head;
        }

        public int status() {
            return status;
        }

        public List<ShuffleWire.Frame> frames() {
            return frames;
        }

        public String text() {
            return text;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Response)) {
                return false;
            }
            Response that = (Response) o;
            return Objects.equals(head, that.head) && status == that.status && Objects.equals(frames, that.frames)
                    && Objects.equals(text, that.text);
        }

        @Override
        public int hashCode() {
            return Objects.hash(head, status, frames, text);
        }

        @Override
        public String toString() {
            return "Response[head=" + head + ", status=" + status + ", frames=" + frames + ", text=" + text + "]";
        }
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
        return new Response(head, status, ShuffleWire.frames(new ByteArrayInputStream(body)), null);
    }
}
