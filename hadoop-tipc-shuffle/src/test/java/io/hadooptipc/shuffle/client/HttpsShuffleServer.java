package io.hadooptipc.shuffle.client;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.hadooptipc.shuffle.TlsMaterial;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.SecretKey;

/**
 * The HTTPS side of host tests with encrypted shuffle: a shuffle server on loopback whose
 * self-signed certificate (for 127.0.0.1, so Hadoop's default host name check passes) only the
 * job's client SSL settings trust ({@link TlsMaterial#loopback()}), so a fetch reaches it only
 * through Hadoop's own client SSL settings, as the stock fetcher makes them.
 */
final class HttpsShuffleServer implements AutoCloseable {
    final AtomicInteger requests = new AtomicInteger();
    private final HttpsServer server;

    /** Answers every request with 200, the stock fields, a ReplyHash made with {@code key}, and {@code body}. */
    HttpsShuffleServer(SecretKey key, byte[] body) throws IOException, GeneralSecurityException {
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(TlsMaterial.serverContext(TlsMaterial.loopback().server)));
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            String hash = exchange.getRequestHeaders().getFirst(SecureShuffleUtils.HTTP_HEADER_URL_HASH);
            exchange.getResponseHeaders().add(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH,
                    SecureShuffleUtils.generateHash(hash.getBytes(StandardCharsets.UTF_8), key));
            exchange.getResponseHeaders().add(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
            exchange.getResponseHeaders().add(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Turns encrypted shuffle on for {@code job}, with client SSL settings that trust this server. */
    static void configure(JobConf job) {
        TlsMaterial.loopback().clientConf(job);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
