package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.TipcIslands;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.TipcAvailability;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.SecretKey;
import java.io.Closeable;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * A reduce task's TIPC side, shared by its fetchers: routes that follow the topology service, and
 * streams kept alive per map host, in TLS when encrypted shuffle requires it and the links are not
 * declared encrypted by the kernel. Closed together at the task's end. Public for whatever fetches
 * as a reduce task does outside one (the shuffle harness): {@link #start} and {@link #open}.
 */
public final class TaskTransports implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskTransports.class);

    private final TransportRoutes routes;
    private final StreamPool streams;
    private final TransferCounters counters;
    /** The job's client SSL settings for TLS over TIPC; null without it. */
    private final SSLFactory ssl;
    /** Streams connected as map hosts become known; null when none are. */
    private final AheadStreams ahead;
    /** The thread that acts on node loss; null when it is not acted on (or not yet: it starts with the TIPC side). */
    private NodeLossTimer nodeLossTimer; // guarded by this
    private boolean closed; // guarded by this

    TaskTransports(TransportRoutes routes, StreamPool streams, TransferCounters counters, SSLFactory ssl,
                   AheadStreams ahead) {
        this.routes = routes;
        this.streams = streams;
        this.counters = counters;
        this.ssl = ssl;
        this.ahead = ahead;
    }

    /** The TIPC side of a reduce task of {@code job}, as its keys configure it, counting in {@code reporter}'s counters. */
    public static TaskTransports start(JobConf job, Reporter reporter) throws IOException {
        return start(job, new TransferCounters(reporter), null);
    }

    /**
     * As {@link #start(JobConf, Reporter)}, and with {@link TipcShuffleConfig#NODE_LOSS_ENABLED} the map hosts whose
     * TIPC node is lost are held, probed and reported through {@code hosts} (the task's scheduler).
     */
    static TaskTransports start(JobConf job, Reporter reporter, NodeLoss.Hosts hosts) throws IOException {
        return start(job, new TransferCounters(reporter), hosts);
    }

    private static TaskTransports start(JobConf job, TransferCounters counters, NodeLoss.Hosts hosts)
            throws IOException {
        return start(job, counters, hosts, KernelLinkCrypto.KALLSYMS);
    }

    /**
     * As {@link #start(JobConf, Reporter, NodeLoss.Hosts)}, reading whether this kernel can encrypt TIPC from
     * {@code kallsyms}; {@code hosts} null: node loss is not acted on.
     */
    static TaskTransports start(JobConf job, TransferCounters counters, NodeLoss.Hosts hosts, Path kallsyms)
            throws IOException {
        Encryption encryption = Encryption.of(job);
        StreamTransport transport = new TipcStreamTransport(TipcShuffleConfig.serviceType(job));
        TrackedStreams tracked = null;
        boolean nodeLoss = hosts != null
                && job.getBoolean(TipcShuffleConfig.NODE_LOSS_ENABLED, TipcShuffleConfig.DEFAULT_NODE_LOSS_ENABLED);
        if (nodeLoss) {
            tracked = new TrackedStreams(transport);
            transport = tracked;
        }
        SSLFactory ssl = null;
        if (encryption == Encryption.TLS) {
            ssl = clientSsl(job);
            transport = new TlsTransport(transport, ssl, counters);
        }
        if (encryption != Encryption.NONE) {
            LOG.info("Encrypted shuffle: {} from hosts that publish it, stock HTTPS from the others", encryption.carried);
        }
        TransportRoutes routes = encryption == Encryption.KERNEL ? unencryptedRoutes(job, counters, kallsyms) : null;
        if (routes == null) {
            routes = TransportRoutes.start(job, counters);
        }
        routes.islands(TipcIslands.forThisHost(job));
        StreamPool streams = StreamPool.of(job, transport, counters);
        routes.onLeavingTipc(streams);
        boolean connectAhead = routes.mode() != TipcShuffleConfig.Transport.TCP && streams.keepsStreams()
                && job.getBoolean(TipcShuffleConfig.CONNECT_AHEAD_ENABLED, TipcShuffleConfig.DEFAULT_CONNECT_AHEAD_ENABLED);
        TaskTransports built = new TaskTransports(routes, streams, counters, ssl,
                connectAhead ? new AheadStreams(routes, streams) : null);
        if (tracked != null && routes.mode() != TipcShuffleConfig.Transport.TCP) {
            routes.whenTipcStarted(new NodeLossStart(built, job, tracked, hosts));
        }
        return built;
    }

    /** Acts on node loss once the task's TIPC side has started: before it, no map host was proven on TIPC. */
    private static final class NodeLossStart implements Runnable {
        private final TaskTransports transports;
        private final JobConf job;
        private final TrackedStreams tracked;
        private final NodeLoss.Hosts hosts;

        NodeLossStart(TaskTransports transports, JobConf job, TrackedStreams tracked, NodeLoss.Hosts hosts) {
            this.transports = transports;
            this.job = job;
            this.tracked = tracked;
            this.hosts = hosts;
        }

        @Override
        public void run() {
            transports.nodeLossStarted(
                    NodeLossWiring.start(job, transports.routes, tracked, hosts, transports.counters));
        }
    }

    /** Keeps the node-loss timer for {@link #close}, or closes it at once if the task's transports are closed. */
    private void nodeLossStarted(NodeLossTimer timer) {
        synchronized (this) {
            if (!closed) {
                nodeLossTimer = timer;
                return;
            }
        }
        if (timer != null) {
            timer.close();
        }
    }

    /**
     * A map host whose first map output just became known, by the base URL of its fetches: a TIPC stream
     * is connected to it for its first fetch, unless connecting ahead is off.
     */
    public void hostKnown(URL url) {
        if (ahead != null) {
            ahead.hostKnown(url);
        }
    }

    /**
     * The connection a fetcher of this task opens for {@code url}: over TIPC while the host publishes the
     * service, otherwise (and after a TIPC failure) the one {@code stock} opens. Not connected yet.
     *
     * @param jobToken the job's shuffle secret, which the stock fetcher signs its requests with
     */
    public HttpURLConnection open(URL url, StockConnections stock, SecretKey jobToken) {
        return new TipcShuffleConnection(url, routes, streams, counters, stock, jobToken);
    }

    /**
     * Where the links are declared encrypted but this node's kernel cannot encrypt TIPC, routes that send
     * nothing over TIPC (in {@code tipc} mode every fetch fails, saying why): plain HTTP must not cross a link
     * the declaration assumes encrypted. Null where the kernel can encrypt; whether a key is set, no kernel
     * interface tells.
     */
    private static TransportRoutes unencryptedRoutes(JobConf job, TransferCounters counters, Path kallsyms) {
        String unencrypted = KernelLinkCrypto.whyNotEncrypted(kallsyms);
        if (unencrypted == null) {
            return null;
        }
        String reason = "encrypted shuffle is required and " + TipcShuffleConfig.LINKS_ENCRYPTED
                + " = true declares the TIPC links encrypted by the kernel, but on this node " + unencrypted;
        return new TransportRoutes(Transport.of(job), new TipcAvailability(TipcAvailability.Level.UNAVAILABLE,
                reason, 0, 0), counters);
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
        if (ahead != null) {
            ahead.close();
        }
        NodeLossTimer timer;
        synchronized (this) {
            closed = true;
            timer = nodeLossTimer;
        }
        if (timer != null) {
            timer.close();
        }
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
