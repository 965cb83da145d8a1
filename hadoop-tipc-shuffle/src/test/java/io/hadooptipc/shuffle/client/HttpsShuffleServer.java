package io.hadooptipc.shuffle.client;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.security.ssl.SSLFactory;

import javax.crypto.SecretKey;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTPS side of host tests with encrypted shuffle: a shuffle server on loopback whose
 * self-signed certificate (for 127.0.0.1, so Hadoop's default host name check passes) only the
 * test's {@code ssl-client.xml} trusts, so a fetch reaches it only through Hadoop's own client
 * SSL settings, as the stock fetcher makes them.
 */
final class HttpsShuffleServer implements AutoCloseable {
    private static final String PASSWORD = "shuffle-test";
    private static final String CLIENT_CONF = "shuffle-test-ssl-client.xml";
    // Once per JVM: the stock Fetcher builds its SSL factory once per JVM, from the first job with SSL on.
    private static final Path MATERIAL = material();

    final AtomicInteger requests = new AtomicInteger();
    private final HttpsServer server;

    /** Answers every request with 200, the stock fields, a ReplyHash made with {@code key}, and {@code body}. */
    HttpsShuffleServer(SecretKey key, byte[] body) throws IOException, GeneralSecurityException {
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverContext()));
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

    /** Turns encrypted shuffle on for {@code job}, with the test's ssl-client.xml as its client SSL settings. */
    static void configure(JobConf job) {
        job.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true);
        job.set(SSLFactory.SSL_CLIENT_CONF_KEY, CLIENT_CONF);
    }

    /** Runs {@code work} with the test's ssl-client.xml on the class path, where Hadoop's SSLFactory looks for it. */
    static <T> T withClientConf(Callable<T> work) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        try (URLClassLoader withConf = new URLClassLoader(new URL[]{MATERIAL.toUri().toURL()}, before)) {
            t.setContextClassLoader(withConf);
            return work.call();
        } finally {
            t.setContextClassLoader(before);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private static SSLContext serverContext() throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(MATERIAL.resolve("shuffle.p12"))) {
            store.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    /** A key pair with a self-signed certificate (made by the JDK's keytool), and an ssl-client.xml trusting it. */
    private static Path material() {
        try {
            Path dir = Files.createTempDirectory("shuffle-https");
            dir.toFile().deleteOnExit();
            Path store = dir.resolve("shuffle.p12");
            Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-alias", "shuffle", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                    "-dname", "CN=127.0.0.1", "-storetype", "PKCS12",
                    "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
                    .redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IOException("keytool failed: " + output);
            }
            store.toFile().deleteOnExit();
            Path conf = dir.resolve(CLIENT_CONF);
            Files.writeString(conf, "<configuration>\n"
                    + property("ssl.client.truststore.location", store.toString())
                    + property("ssl.client.truststore.password", PASSWORD)
                    + property("ssl.client.truststore.type", "pkcs12")
                    + "</configuration>\n");
            conf.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String property(String name, String value) {
        return "  <property><name>" + name + "</name><value>" + value + "</value></property>\n";
    }
}
