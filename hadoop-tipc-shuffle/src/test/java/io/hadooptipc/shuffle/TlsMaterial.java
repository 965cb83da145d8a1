package io.hadooptipc.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.security.ssl.SSLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Key and trust stores for tests of encrypted shuffle, made by the JDK's keytool: a server's key
 * pair with a self-signed certificate for one host, and Hadoop configurations that use them as
 * stock's ssl-server.xml and ssl-client.xml would. Hadoop's {@link SSLFactory} reads its settings
 * from the configuration itself when the named ssl-*.xml is not on the class path, which is how
 * these configurations carry them.
 */
public final class TlsMaterial {
    public static final String PASSWORD = "shuffle-test";
    /** A resource name no class path holds, so that SSLFactory takes the keys below from the configuration. */
    private static final String NOT_ON_CLASS_PATH = "tipc-shuffle-test-no-such-ssl.xml";
    private static TlsMaterial loopback;

    /** The server's key store: its key pair, certificate for {@code CN=<host>}. */
    public final Path server;
    /** A trust store holding the server's certificate and the others the material was made to trust. */
    public final Path trust;
    private final Path dir;

    private TlsMaterial(Path dir, Path server, Path trust) {
        this.dir = dir;
        this.server = server;
        this.trust = trust;
    }

    /**
     * For loopback servers, once per JVM: the stock Fetcher builds its SSL factory once per JVM, from
     * the first job with encrypted shuffle, so every host test must trust the same stores. It also
     * trusts a certificate for another host ({@link #otherHost}), and leaves one for this host
     * untrusted ({@link #impostor}).
     */
    public static synchronized TlsMaterial loopback() {
        if (loopback == null) {
            try {
                Path dir = tempDir();
                Path trust = dir.resolve("trust.p12");
                keytool("-genkeypair", "-alias", "server", "-dname", "CN=127.0.0.1", "-keystore", trust.toString());
                keytool("-genkeypair", "-alias", "other", "-dname", "CN=other.example", "-keystore", trust.toString());
                Path server = dir.resolve("server.p12");
                keytool("-importkeystore", "-srckeystore", trust.toString(), "-srcalias", "server",
                        "-srcstorepass", PASSWORD, "-destkeystore", server.toString(), "-deststorepass", PASSWORD);
                keytool("-importkeystore", "-srckeystore", trust.toString(), "-srcalias", "other",
                        "-srcstorepass", PASSWORD, "-destkeystore", dir.resolve("other.p12").toString(),
                        "-deststorepass", PASSWORD);
                keytool("-genkeypair", "-alias", "impostor", "-dname", "CN=127.0.0.1",
                        "-keystore", dir.resolve("impostor.p12").toString());
                loopback = new TlsMaterial(dir, server, trust);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return loopback;
    }

    /** A server key pair for {@code host}, whose own key store is the trust store. */
    public static TlsMaterial forHost(String host) throws IOException {
        Path dir = tempDir();
        Path server = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "server", "-dname", "CN=" + host, "-keystore", server.toString());
        return new TlsMaterial(dir, server, server);
    }

    /** A key store with a certificate for the loopback host that the trust store does not hold. */
    public Path impostor() {
        return dir.resolve("impostor.p12");
    }

    /** A key store with a trusted certificate, but for {@code other.example}. */
    public Path otherHost() {
        return dir.resolve("other.p12");
    }

    /** Turns encrypted shuffle on in {@code conf}, with {@code keyStore} as the NodeManager's ssl-server.xml names it. */
    public void serverConf(Configuration conf, Path keyStore) {
        conf.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true);
        conf.set(SSLFactory.SSL_SERVER_CONF_KEY, NOT_ON_CLASS_PATH);
        conf.set("ssl.server.keystore.location", keyStore.toString());
        conf.set("ssl.server.keystore.password", PASSWORD);
        conf.set("ssl.server.keystore.type", "pkcs12");
    }

    /** Turns encrypted shuffle on in {@code job}, with the trust store as the job's ssl-client.xml names it. */
    public void clientConf(Configuration job) {
        job.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true);
        job.set(SSLFactory.SSL_CLIENT_CONF_KEY, NOT_ON_CLASS_PATH);
        job.set("ssl.client.truststore.location", trust.toString());
        job.set("ssl.client.truststore.password", PASSWORD);
        job.set("ssl.client.truststore.type", "pkcs12");
    }

    /** A server's TLS context with the key pair in {@code keyStore}. */
    public static SSLContext serverContext(Path keyStore) throws IOException, GeneralSecurityException {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load(keyStore), PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    /** A client's TLS context that trusts what the trust store holds. */
    public SSLContext clientContext() throws IOException, GeneralSecurityException {
        TrustManagerFactory trusted = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trusted.init(load(trust));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trusted.getTrustManagers(), null);
        return context;
    }

    private static KeyStore load(Path path) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static Path tempDir() throws IOException {
        Path dir = Files.createTempDirectory("shuffle-tls");
        dir.toFile().deleteOnExit();
        return dir;
    }

    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        if ("-genkeypair".equals(args[0])) {
            command.addAll(List.of("-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-storetype", "PKCS12",
                    "-storepass", PASSWORD, "-keypass", PASSWORD));
        } else {
            command.addAll(List.of("-srcstoretype", "PKCS12", "-deststoretype", "PKCS12", "-noprompt"));
        }
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for keytool", e);
        }
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("-keystore") || args[i].equals("-destkeystore")) {
                Path.of(args[i + 1]).toFile().deleteOnExit(); // after its folder's registration: deleted first
            }
        }
    }
}
