package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcSocketAddress;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The NodeManager's watch on its own shuffle names for as long as it serves: a topology
 * subscription on each name, which reports every socket that binds or unbinds it, those bound
 * before the NodeManager started included. Another holder is counted in the
 * {@value TipcShuffleMetrics#NAME_OTHER_HOLDERS} gauge and the
 * {@value TipcShuffleMetrics#NAME_OTHER_HOLDERS_SEEN} counter, and WARNed of as
 * {@link NewHolderWarnings} allows. One thread, blocked on the topology connection.
 */
final class ServiceNameWatch implements Closeable, NameHolders.Actions {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceNameWatch.class);
    /** Not named as the serving threads, which CPU probes find by {@link TipcShuffleServer#THREAD_NAME}. */
    static final String THREAD_NAME = "TIPC name watch";

    private final int serviceType;
    private final TipcShuffleMetrics metrics;
    private final TipcTopologyChannel topology;
    private final NameHolders holders;
    private final NewHolderWarnings warnings = new NewHolderWarnings(NewHolderWarnings.INTERVAL);
    /** Holders WARNed of one by one, by {@link #key}: their leaving is logged too; summaries count the others. */
    private final Set<String> warnedOf = new HashSet<>();
    private ShuffleServiceName latestNotWarnedOfName;
    private TipcSocketAddress latestNotWarnedOf;
    private final Thread thread;
    private volatile boolean closing;

    private ServiceNameWatch(int serviceType, List<ShuffleServiceName> names, TipcSocketAddress listener,
                             TipcShuffleMetrics metrics, TipcTopologyChannel topology) {
        this.serviceType = serviceType;
        this.metrics = metrics;
        this.topology = topology;
        this.holders = new NameHolders(listener, names, this);
        this.thread = new Thread(this::watch, THREAD_NAME);
        thread.setDaemon(true);
    }

    /** Watches {@code names} (one per instance), which {@code listener} publishes. */
    static ServiceNameWatch start(int serviceType, List<ShuffleServiceName> names, TipcSocketAddress listener,
                                  TipcShuffleMetrics metrics) throws IOException {
        TipcTopologyChannel topology = TipcTopologyChannel.open();
        try {
            for (ShuffleServiceName name : names) {
                topology.subscribe(TipcServiceRange.of(serviceType, name.instance(), name.instance()),
                        TipcTopologyChannel.Mode.EVERY_BINDING);
            }
            ServiceNameWatch watch = new ServiceNameWatch(serviceType, names, listener, metrics, topology);
            watch.thread.start();
            return watch;
        } catch (IOException | RuntimeException e) {
            topology.close();
            throw e;
        }
    }

    private void watch() {
        try {
            for (;;) {
                Duration untilSummary = warnings.untilSummary(System.nanoTime());
                TipcTopologyEvent event = untilSummary == null ? topology.receive() : topology.receive(untilSummary);
                if (event != null) {
                    int instance = event.subscription().range().lower();
                    if (event.kind() == TipcTopologyEvent.Kind.PUBLISHED) {
                        holders.published(instance, event.socket());
                    } else if (event.kind() == TipcTopologyEvent.Kind.WITHDRAWN) {
                        holders.withdrawn(instance, event.socket());
                    }
                    metrics.nameOtherHolders.set(holders.otherHolders());
                }
                int notWarnedOf = warnings.summarize(System.nanoTime());
                if (notWarnedOf > 0) {
                    LOG.warn("TIPC shuffle names of this node: {} more sockets bound them in the last {} s, not"
                                    + " logged one by one (each counted in {}), the latest {} by {}; {} other sockets"
                                    + " bind them now", notWarnedOf, NewHolderWarnings.INTERVAL.getSeconds(),
                            TipcShuffleMetrics.NAME_OTHER_HOLDERS_SEEN, shown(latestNotWarnedOfName),
                            socketName(latestNotWarnedOf), holders.otherHolders());
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                LOG.error("TIPC shuffle names no longer watched: another socket that binds them goes unnoticed"
                        + " until the NodeManager restarts: {}", e.toString(), e);
            }
        }
    }

    @Override
    public void otherHolder(ShuffleServiceName name, TipcSocketAddress holder) {
        metrics.nameOtherHoldersSeen.incr();
        if (!warnings.warnOf(System.nanoTime())) {
            latestNotWarnedOfName = name;
            latestNotWarnedOf = holder;
            return;
        }
        warnedOf.add(key(name, holder));
        LOG.warn("TIPC shuffle name {} is also bound by {}: any process may bind a TIPC name (and another"
                        + " NodeManager's name may hash alike), and the kernel may hand it reducers' connections;"
                        + " they do not read its answers without the job token's channel binding and fetch from"
                        + " this NodeManager's own publication. Find its process with `tipc socket list` on that"
                        + " node (new holders: one line at most every {} s, each counted in {})", shown(name),
                socketName(holder), NewHolderWarnings.INTERVAL.getSeconds(),
                TipcShuffleMetrics.NAME_OTHER_HOLDERS_SEEN);
    }

    @Override
    public void holderLeft(ShuffleServiceName name, TipcSocketAddress holder) {
        if (warnedOf.remove(key(name, holder))) {
            LOG.info("TIPC shuffle name {} is no longer bound by {}", shown(name), socketName(holder));
        }
    }

    private static String key(ShuffleServiceName name, TipcSocketAddress holder) {
        return name.instance() + " " + holder;
    }

    private String shown(ShuffleServiceName name) {
        return name.tipcAddress(serviceType) + " of " + name;
    }

    private static String socketName(TipcSocketAddress socket) {
        return "node " + ServiceNameCheck.nodeName(socket.node()) + " port " + Integer.toUnsignedString(socket.ref());
    }

    /** Stops watching, before the server closes its listener. */
    @Override
    public void close() throws IOException {
        closing = true;
        topology.close(); // ends the thread's receive
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted stopping the TIPC shuffle name watch", e);
        }
    }
}
