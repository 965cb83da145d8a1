package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * A reduce task's TIPC side, shared by its fetchers: routes that follow the topology service, and
 * streams kept alive per map host, in TLS when encrypted shuffle requires it and the links are not
 * declared encrypted by the kernel. Closed together at the task's end.
 */
final class TaskTransports implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskTransports.class);

    final TransportRoutes routes;
    final StreamPool streams;
    /** The job's client SSL settings for TLS over TIPC; null without it. */
    private final SSLFactory ssl;

    private TaskTransports(TransportRoutes routes, StreamPool streams, SSLFactory ssl) {
        this.routes = routes;
        this.streams = streams;
        this.ssl = ssl;
    }

    static TaskTransports start(JobConf job, TransferCounters counters) throws IOException {
        Encryption encryption = Encryption.of(job);
        StreamTransport transport = new TipcStreamTransport(TipcShuffleConfig.serviceType(job));
        SSLFactory ssl = null;
        if (encryption == Encryption.TLS) {
            ssl = clientSsl(job);
            transport = new TlsTransport(transport, ssl, counters);
        }
        if (encryption != Encryption.NONE) {
            LOG.info("Encrypted shuffle: {} from hosts that publish it, stock HTTPS from the others", encryption.carried);
        }
        TransportRoutes routes = TransportRoutes.start(job, counters);
        StreamPool streams = StreamPool.of(job, transport, counters);
        routes.onLeavingTipc(streams);
        return new TaskTransports(routes, streams, ssl);
    }

    /** The job's client SSL settings, as the stock fetcher loads them for HTTPS. */
    private static SSLFactory clientSsl(JobConf job) throws IOException {
        SSLFactory ssl = new SSLFactory(SSLFactory.Mode.CLIENT, job);
        try {
            ssl.init();
        } catch (GeneralSecurityException e) {
            ssl.destroy();
            throw new IOException("encrypted shuffle: the job's SSL client settings do not load: " + e, e);
        }
        return ssl;
    }

    @Override
    public void close() {
        streams.close();
        try {
            routes.close();
        } catch (IOException e) {
            LOG.debug("closing the TIPC topology connection", e);
        }
        if (ssl != null) {
            ssl.destroy();
        }
    }
}
