package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcSocketAddress;
import org.apache.hadoop.security.ssl.SSLFactory;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.List;

/**
 * Streams of another transport in TLS, with the job's client SSL settings: Hadoop's
 * {@link SSLFactory} in client mode, made from the job's configuration as the stock fetcher makes
 * its own for HTTPS (its trust store, protocols, and host name verifier).
 */
final class TlsTransport implements StreamTransport {
    private final StreamTransport plain;
    private final SSLFactory ssl;
    private final TransferCounters counters;

    TlsTransport(StreamTransport plain, SSLFactory ssl, TransferCounters counters) {
        this.plain = plain;
        this.ssl = ssl;
        this.counters = counters;
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        return tls(plain.open(name, host, timeouts), host);
    }

    @Override
    public List<TipcSocketAddress> publications(ShuffleServiceName name) throws IOException {
        return plain.publications(name);
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, TipcSocketAddress publication, String host, Timeouts timeouts)
            throws IOException {
        return tls(plain.open(name, publication, host, timeouts), host);
    }

    private ShuffleStream tls(ShuffleStream wire, String host) throws IOException {
        TlsStream tls;
        try {
            tls = TlsStream.connect(wire, ssl.createSSLEngine(), host, ssl.getHostnameVerifier());
        } catch (GeneralSecurityException e) {
            ShuffleStream.closeQuietly(wire);
            throw new SSLException("TLS over TIPC: no SSL engine from the job's SSL settings: " + e, e);
        }
        counters.tlsStream();
        return tls;
    }
}
