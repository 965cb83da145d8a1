package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.ReadaheadPool;
import org.apache.hadoop.io.SecureIOUtils;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.SecretKey;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Answers one map-output request on a connected stream, byte for byte as the stock
 * ShuffleHandler answers it over HTTP/TCP: the job-token HMAC checked ({@code UrlHash})
 * and returned ({@code ReplyHash}) with Hadoop's own {@link SecureShuffleUtils}, then a
 * {@link ShuffleHeader} and the partition's bytes per map. Nothing of a job's output is
 * sent before its request has been verified and every requested map located.
 * <p>
 * The checks mirror the stock ShuffleChannelHandler's, which cannot be called (it is a Netty
 * handler with a package-private constructor); {@code StockRefusalsTest} pins each refusal to
 * the stock handler's answer to the same request.
 */
public final class ShuffleResponder {
    private static final Logger LOG = LoggerFactory.getLogger(ShuffleResponder.class);
    private static final long SEND_CHUNK = 1 << 20;

    /** Stock keys, with stock defaults, that shape a response. */
    public record Settings(int httpPort, boolean keepAliveEnabled, int keepAliveTimeoutSeconds,
                           boolean manageOsCache, int readaheadBytes) {
    }

    private final JobRegistry jobs;
    private final MapOutputStore store;
    private final Set<String> identities;
    private final String defaultIdentity;
    private final Settings settings;
    private final TipcShuffleMetrics metrics;
    private final ReadaheadPool readahead;

    /**
     * @param identities the {@code address:port} names this server answers to; a request
     *                   naming another target gets 421 Misdirected Request. A response to a
     *                   request that names none (or that could not be parsed) names the
     *                   first in string order, the same on every start.
     */
    public ShuffleResponder(JobRegistry jobs, MapOutputStore store, Set<String> identities,
                            Settings settings, TipcShuffleMetrics metrics) {
        this.jobs = jobs;
        this.store = store;
        this.identities = Set.copyOf(identities);
        this.defaultIdentity = Collections.min(identities);
        this.settings = settings;
        this.metrics = metrics;
        this.readahead = settings.manageOsCache() && settings.readaheadBytes() > 0 ? ReadaheadPool.getInstance() : null;
    }

    /** Answers {@code head}; returns whether the connection may carry another request. */
    public boolean respond(HttpHead head, ResponseStream out) throws IOException {
        ShuffleRequest request;
        String identity;
        HttpHead.Builder response = HttpHead.builder("HTTP/1.1 200 OK");
        String user;
        List<MapOutputStore.Partition> partitions;
        try {
            request = ShuffleRequest.parse(head);
            identity = identity(request.target());
            response.field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, verify(request));
            user = jobs.user(request.jobId());
            partitions = locate(request, user);
        } catch (ShuffleException e) {
            sendError(out, head, e.status(), e.getMessage(), null);
            return false;
        }
        long contentLength = 0;
        List<byte[]> headers = new ArrayList<>(partitions.size());
        for (int i = 0; i < partitions.size(); i++) {
            MapOutputStore.Partition p = partitions.get(i);
            byte[] header = shuffleHeader(request.mapIds().get(i), p, request.reduce());
            headers.add(header);
            contentLength += header.length + p.length();
        }
        boolean keepAlive = request.keepAliveAsked() || settings.keepAliveEnabled();
        response.field(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME)
                .field(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION)
                .field(TipcShuffleConfig.SERVER_HEADER, identity);
        if (keepAlive) {
            response.field("Connection", "keep-alive")
                    .field("Keep-Alive", "timeout=" + settings.keepAliveTimeoutSeconds());
        } else {
            response.field("Connection", "close");
        }
        response.field("Content-Length", contentLength);
        out.writeFully(ByteBuffer.wrap(response.build().encode()));

        for (int i = 0; i < partitions.size(); i++) {
            MapOutputStore.Partition p = partitions.get(i);
            try {
                out.writeFully(ByteBuffer.wrap(headers.get(i)));
                send(p, user, out);
            } catch (IOException e) {
                metrics.outputsFailed.incr();
                throw e; // the status line is out: the reducer sees a short response and retries
            }
            metrics.outputsOk.incr();
            metrics.outputBytes.incr(p.length());
        }
        return keepAlive;
    }

    /** Answers with an error status and a short text body; the connection is then closed. */
    public void sendError(ResponseStream out, HttpHead request, int status, String message, Long retryAfterMillis)
            throws IOException {
        out.writeFully(errorResponse(request, status, message, retryAfterMillis));
    }

    /**
     * The bytes of an error response to {@code request} (null: no parsable head), for
     * a caller that must not block writing them. Like every response it names this
     * server: the target the request named when that is one of ours, else the default.
     */
    public ByteBuffer errorResponse(HttpHead request, int status, String message, Long retryAfterMillis) {
        metrics.requestsRejected.incr();
        String target = request == null ? null : request.field(TipcShuffleConfig.TARGET_HEADER);
        byte[] body = message.getBytes(StandardCharsets.UTF_8);
        HttpHead.Builder head = HttpHead.builder("HTTP/1.1 " + status + " " + reason(status))
                .field("Content-Type", "text/plain; charset=UTF-8")
                .field(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME)
                .field(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION)
                .field(TipcShuffleConfig.SERVER_HEADER, target != null && identities.contains(target) ? target : defaultIdentity);
        if (retryAfterMillis != null) {
            head.field(ShuffleHandler.RETRY_AFTER_HEADER, retryAfterMillis);
        }
        head.field("Connection", "close").field("Content-Length", body.length);
        byte[] bytes = head.build().encode();
        return ByteBuffer.allocate(bytes.length + body.length).put(bytes).put(body).flip();
    }

    private String identity(String target) throws ShuffleException {
        if (target == null) {
            return defaultIdentity;
        }
        if (!identities.contains(target)) {
            throw new ShuffleException(421, "Misdirected: this server is " + identities + ", not " + target);
        }
        return target;
    }

    /** The stock handler's checks in its order; a refusal says what stock's says. */
    private String verify(ShuffleRequest request) throws ShuffleException {
        try {
            SecretKey secret = jobs.secret(request.jobId());
            if (request.urlHash() == null) {
                throw new IOException("fetcher cannot be authenticated");
            }
            String message = SecureShuffleUtils.buildMsgFrom(new URL("http", "", settings.httpPort(), request.uri()));
            SecureShuffleUtils.verifyReply(request.urlHash(), message, secret);
            return SecureShuffleUtils.generateHash(request.urlHash().getBytes(StandardCharsets.UTF_8), secret);
        } catch (IOException e) {
            LOG.warn("Shuffle request for {} refused: {}", request.jobId(), e.getMessage());
            throw new ShuffleException(401, e.getMessage());
        }
    }

    private List<MapOutputStore.Partition> locate(ShuffleRequest request, String user) throws ShuffleException {
        List<MapOutputStore.Partition> partitions = new ArrayList<>(request.mapIds().size());
        for (String mapId : request.mapIds()) {
            try {
                MapOutputStore.Partition p = store.locate(request.jobId(), user, mapId, request.reduce());
                // Open it now, as the stock handler does, so a missing or foreign file is a clean 500.
                SecureIOUtils.openForRandomRead(p.file(), "r", user, null).close();
                partitions.add(p);
            } catch (IOException e) {
                LOG.error("Shuffle error locating {} for reduce {}", mapId, request.reduce(), e);
                throw new ShuffleException(500, messages(e));
            }
        }
        return partitions;
    }

    private void send(MapOutputStore.Partition p, String user, ResponseStream out) throws IOException {
        try (RandomAccessFile file = SecureIOUtils.openForRandomRead(p.file(), "r", user, null)) {
            String name = p.file().getAbsolutePath();
            ReadaheadPool.ReadaheadRequest pending = null;
            long end = p.offset() + p.length();
            for (long pos = p.offset(); pos < end; ) {
                long count = Math.min(SEND_CHUNK, end - pos);
                if (readahead != null) {
                    pending = readahead.readaheadStream(name, file.getFD(), pos, settings.readaheadBytes(), end, pending);
                }
                out.sendFile(file.getFD(), pos, count);
                pos += count;
            }
            if (pending != null) {
                pending.cancel();
            }
            if (settings.manageOsCache() && p.length() > 0) {
                // Each partition is read once: leave the page cache to data that will be read again.
                NativeIO.POSIX.getCacheManipulator().posixFadviseIfPossible(name, file.getFD(),
                        p.offset(), p.length(), NativeIO.POSIX.POSIX_FADV_DONTNEED);
            }
        }
    }

    private static byte[] shuffleHeader(String mapId, MapOutputStore.Partition p, int reduce) {
        DataOutputBuffer out = new DataOutputBuffer();
        try {
            new ShuffleHeader(mapId, p.length(), p.rawLength(), reduce).write(out);
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        byte[] bytes = new byte[out.getLength()];
        System.arraycopy(out.getData(), 0, bytes, 0, bytes.length);
        return bytes;
    }

    /** The stock handler's text for a 500: the messages of the exception and its causes, run together. */
    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder(String.valueOf(t.getMessage()));
        for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
            sb.append(c.getMessage());
        }
        return sb.toString();
    }

    private static String reason(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 405 -> "Method Not Allowed";
            case 421 -> "Misdirected Request";
            case 429 -> "Too Many Requests";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            default -> "Error";
        };
    }
}
