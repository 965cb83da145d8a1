package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcAvailability;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleChannelHandlerContext;
import org.apache.hadoop.mapred.ShuffleChannelInitializer;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The {@code mapreduce_shuffle} aux service with a TIPC transport. It is the stock
 * ShuffleHandler (the HTTP/TCP shuffle, job tokens, recovery and metrics are all
 * stock), plus a {@link TipcShuffleServer} that runs stock's own shuffle pipeline, with
 * the same tokens and caches, under a TIPC name for each of this node's addresses
 * ({@link ShuffleServiceName}): TLS over TIPC, with stock's own SSL factory, where encrypted
 * shuffle is required and the TIPC links are not declared encrypted by the kernel. Without
 * AF_TIPC it logs why once and is exactly the stock handler; so it is, failing closed, where the
 * links are declared encrypted and the kernel has no TIPC encryption.
 */
public class TipcShuffleHandler extends ShuffleHandler {
    private static final Logger LOG = LoggerFactory.getLogger(TipcShuffleHandler.class);

    private final TipcShuffleMetrics tipcMetrics = new TipcShuffleMetrics();
    private Closeable tipc;

    @Override
    protected void serviceStart() throws Exception {
        if (getAuxiliaryLocalPathHandler() == null) {
            LOG.info("no local path handler from the NodeManager (the aux service is on its own class path, whose "
                    + "wrapper keeps it): reading map outputs from {} directly", YarnConfiguration.NM_LOCAL_DIRS);
            setAuxiliaryLocalPathHandler(new NodeManagerLocalDirs(getConfig()));
        }
        super.serviceStart();
        try {
            // Registered whether or not TIPC serves: its metrics also say why not.
            ms.register(TipcShuffleMetrics.NAME, "Map output served over TIPC", tipcMetrics);
            tipc = startTipc(getConfig());
        } catch (Exception | LinkageError e) { // TIPC trouble, a bad TIPC key included, never stops the NodeManager
            LOG.error("TIPC shuffle not started, serving HTTP/TCP only: {}", e.toString(), e);
        }
    }

    /**
     * Starts serving over TIPC; null when TIPC is off or unavailable, or its links are declared
     * encrypted on a kernel that cannot encrypt them (the reason is logged).
     * Package-private: a test puts a failing transport in its place.
     */
    Closeable startTipc(Configuration conf) throws IOException {
        String notServed = TipcShuffleConfig.whyNotServed(conf);
        if (notServed != null) {
            LOG.warn("TIPC shuffle not started: {}", notServed);
            return null;
        }
        Encryption encryption = Encryption.of(conf);
        if (encryption == Encryption.KERNEL) {
            String unencrypted = KernelLinkCrypto.whyNotEncrypted(KernelLinkCrypto.KALLSYMS);
            if (unencrypted != null) {
                tipcMetrics.notServedUnencrypted.set(1);
                LOG.error("TIPC shuffle not started: encrypted shuffle is required and {} = true declares the TIPC"
                                + " links encrypted by the kernel, but {}; reducers fetch from this node over stock"
                                + " HTTPS", TipcShuffleConfig.LINKS_ENCRYPTED, unencrypted);
                return null;
            }
        }
        TipcAvailability availability = Tipc.availability();
        if (!availability.isAvailable()) {
            LOG.warn("TIPC shuffle not started, serving HTTP/TCP only: {}", availability);
            return null;
        }
        int port = deserializeMetaData(getMetaData());
        int type = TipcShuffleConfig.serviceType(conf);
        // Published whoever else binds them: reducers walk past a holder that does not prove the job token.
        List<ShuffleServiceName> names = ServiceNameCheck.oneByInstance(ShuffleServiceName.ofThisHost(port));
        if (names.isEmpty()) {
            LOG.warn("TIPC shuffle not started: this node has no address to name its shuffle by");
            return null;
        }
        Set<String> identities = new LinkedHashSet<>();
        names.forEach(n -> identities.add(n.toString()));
        ShuffleChannelHandlerContext context = tipcContext(port);
        int maxConnections = conf.getInt(MAX_SHUFFLE_CONNECTIONS, DEFAULT_MAX_SHUFFLE_CONNECTIONS);
        int maxOpen = positive(conf, TipcShuffleConfig.MAX_OPEN_CONNECTIONS, TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS);
        if (maxConnections >= maxOpen) {
            LOG.warn("{} = {} is not below {} = {}: TIPC connections over the cap are closed at accept, and no"
                            + " reducer gets the 429 that tells it to back off", MAX_SHUFFLE_CONNECTIONS,
                    maxConnections, TipcShuffleConfig.MAX_OPEN_CONNECTIONS, maxOpen);
        }
        int maxOpenPerNode = positive(conf, TipcShuffleConfig.MAX_OPEN_CONNECTIONS_PER_NODE,
                TipcShuffleConfig.DEFAULT_MAX_OPEN_CONNECTIONS_PER_NODE);
        if (maxOpenPerNode >= maxOpen) {
            LOG.warn("{} = {} is not below {} = {}: one node's TIPC connections may hold every place, and other"
                            + " nodes' reducers are then closed at accept",
                    TipcShuffleConfig.MAX_OPEN_CONNECTIONS_PER_NODE, maxOpenPerNode,
                    TipcShuffleConfig.MAX_OPEN_CONNECTIONS, maxOpen);
        }
        // A request waits as long as stock lets a kept-alive connection idle, in stock's reading of the key.
        TipcShuffleServer server = TipcShuffleServer.start(type, names,
                new OpenConnectionCap(maxOpen, maxOpenPerNode, OpenConnectionCap.TIPC, tipcMetrics),
                new TipcShuffleChannelInitializer(stockPipeline(context, encryption), identities, tipcMetrics,
                        positive(conf, TipcShuffleConfig.WRITE_TIMEOUT_MS, TipcShuffleConfig.DEFAULT_WRITE_TIMEOUT_MS),
                        TimeUnit.SECONDS.toMillis(context.connectionKeepAliveTimeOut), maxConnections,
                        conf.getInt(TipcShuffleConfig.GATHER_MAX_BYTES, TipcShuffleConfig.DEFAULT_GATHER_MAX_BYTES),
                        context.secretManager, ChannelBindingCheck.TIPC, context.port), threads(conf));
        ServiceNameWatch watch;
        try {
            watch = ServiceNameWatch.start(type, names, server.listenerAddress(), tipcMetrics);
        } catch (IOException | RuntimeException e) {
            closeQuietly(server);
            throw e;
        }
        List<String> published = new ArrayList<>();
        names.forEach(n -> published.add(n + " as " + n.tipcAddress(type) + " (" + n.scope() + ")"));
        LOG.info("TIPC shuffle serving ({}) {} on {}", availability.level(), encryption.carried, published);
        if (encryption == Encryption.KERNEL) {
            LOG.warn("Encrypted shuffle is required and map output goes over TIPC without TLS: {} declares"
                    + " every TIPC link encrypted by the kernel (tipc node set key on every node); the kernel can"
                    + " encrypt TIPC but does not let this handler verify that a key is set",
                    TipcShuffleConfig.LINKS_ENCRYPTED);
        }
        return () -> {
            try {
                watch.close();
            } finally {
                server.close();
            }
        };
    }

    @Override
    protected void serviceStop() throws Exception {
        Closeable serving = tipc;
        tipc = null;
        try {
            try {
                if (serving != null) {
                    closeQuietly(serving);
                }
            } finally {
                ms.unregisterSource(TipcShuffleMetrics.NAME);
            }
        } finally {
            super.serviceStop();
        }
    }

    private static void closeQuietly(Closeable tipc) {
        try {
            tipc.close();
        } catch (Exception | LinkageError e) {
            LOG.warn("TIPC shuffle did not close cleanly: {}", e.toString(), e);
        }
    }

    /** What was served over TIPC; the stock {@code ShuffleMetrics} source counts HTTP/TCP. */
    public TipcShuffleMetrics tipcMetrics() {
        return tipcMetrics;
    }

    /** Whether the TIPC transport is serving (false: HTTP/TCP only, the reason is logged). */
    public boolean isServingTipc() {
        return tipc != null;
    }

    /**
     * Stock's pipeline for TIPC connections on a {@link #tipcContext}, with TLS over TIPC stock's own
     * SSL factory, which puts stock's {@code SslHandler} first. Package-private: the pipeline test
     * serves it on loopback TCP.
     */
    ShuffleChannelInitializer stockPipeline(ShuffleChannelHandlerContext context, Encryption encryption) {
        return new ShuffleChannelInitializer(context, encryption == Encryption.TLS ? StockSslFactory.of(this) : null);
    }

    /**
     * Stock's handler context for TIPC connections: its caches, job tokens, stock metrics and
     * channel group, with keep-alive on, so that a reducer may send a host's next request on the
     * same TIPC stream (stock's keep-alive timeout still closes idle ones), and without the
     * connection limit, which {@link ConnectionLimit} applies. A UrlHash signs the HTTP port,
     * which the context must know.
     */
    ShuffleChannelHandlerContext tipcContext(int port) {
        ShuffleChannelHandlerContext stock = createHandlerContext();
        Configuration conf = new Configuration(stock.conf);
        conf.setBoolean(SHUFFLE_CONNECTION_KEEP_ALIVE_ENABLED, true);
        conf.setInt(MAX_SHUFFLE_CONNECTIONS, 0);
        ShuffleChannelHandlerContext context = new ShuffleChannelHandlerContext(conf, stock.userRsrc,
                stock.secretManager, stock.pathCache, stock.indexCache, stock.metrics, stock.allChannels);
        context.port = port;
        return context;
    }

    /** Stock's {@code mapreduce.shuffle.max.threads}, 0 meaning twice the cores, as stock reads it. */
    private static int threads(Configuration conf) {
        int threads = conf.getInt(MAX_SHUFFLE_THREADS, DEFAULT_MAX_SHUFFLE_THREADS);
        return threads > 0 ? threads : 2 * Runtime.getRuntime().availableProcessors();
    }

    private static int positive(Configuration conf, String key, int defaultValue) {
        int value = conf.getInt(key, defaultValue);
        if (value <= 0) {
            throw new IllegalArgumentException(key + " must be positive: " + value);
        }
        return value;
    }
}
