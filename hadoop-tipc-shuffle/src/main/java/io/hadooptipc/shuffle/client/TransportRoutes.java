package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcIslands;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.FirstFetches;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcAvailability;
import io.hadooptipc.tipc.TipcTopologyChannel;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.URL;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Decides, per map host, whether a reduce task's fetchers try TIPC. A host goes over
 * HTTP/TCP after a TIPC failure, and at once, without a connect attempt, when the
 * topology service reports its shuffle name withdrawn; it comes back to TIPC when its
 * name is published again (a NodeManager or link that recovered). Each switch is logged
 * and counted. Without topology reports (switched off, or the service cannot be
 * reached) a host that fell back stays on HTTP/TCP for the rest of the task; but one that fell back before any
 * socket at its name proved the job token ({@link Fallback#unproven}), which any process that binds the name can
 * cause, is held on HTTP/TCP only for {@link #proofBounds a while}. The fetches' bounds on that proof, and the
 * timer that enforces them, are here too. Once the header of a
 * map output larger than {@link #tcpAbove} arrives over TIPC, that output comes over HTTP/TCP and
 * every host goes there for the rest of the task, by choice rather than failure: a reduce task's
 * partitions of different maps are alike in size, the stock fetcher asks a host for all its
 * finished maps in one request, and TCP carries bulk data in fewer frames. With the first fetches over HTTP/TCP
 * ({@link #firstFetches}), every host goes there until the task's first map output has shown its size, which sends
 * the task to TIPC if it is at most {@link #tcpAbove}, so that a bulk task pays nothing for TIPC; with a probe, one
 * fetch goes over TIPC while the others wait for its first map output's header, which chooses the same way. The idle
 * streams to a host are closed when it leaves TIPC ({@link #onLeavingTipc}).
 */
final class TransportRoutes implements NameWatch.Listener, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TransportRoutes.class);

    /**
     * A TIPC name to try, or why not to; {@code publications} is how often the name had
     * been published when the route was given, so that a failure seen after the name
     * came back does not send the host to HTTP/TCP again.
     */
    static final class Route {
        private final ShuffleServiceName name;
        private final Fallback fallback;
        private final long publications;

        Route(ShuffleServiceName name, Fallback fallback, long publications) {
            this.name = name;
            this.fallback = fallback;
            this.publications = publications;
        }

        public ShuffleServiceName name() {
            return name;
        }

        public Fallback fallback() {
            return fallback;
        }

        public long publications() {
            return publications;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Route)) {
                return false;
            }
            Route that = (Route) o;
            return Objects.equals(name, that.name) && Objects.equals(fallback, that.fallback)
                    && publications == that.publications;
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, fallback, publications);
        }

        @Override
        public String toString() {
            return "Route[name=" + name + ", fallback=" + fallback + ", publications=" + publications + "]";
        }
    }

    /** A map host's route: TIPC unless {@code tcpBecause} says why not; an unproven one until {@code heldUntil}. */
    private static final class Host {
        long publications;
        Fallback tcpBecause;
        long heldUntil; // System.nanoTime()
    }

    /** The proof timer's thread: a daemon, so that it keeps no task JVM alive. */
    private static final class ProofTimerThreads implements ThreadFactory {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "TIPC shuffle proof deadlines");
            t.setDaemon(true);
            return t;
        }
    }

    private final Transport mode;
    private volatile TipcAvailability availability; // null until the TIPC side is started
    private final TransferCounters counters;
    private final Map<ShuffleServiceName, Host> hosts = new ConcurrentHashMap<>();
    private final AtomicBoolean unavailableLogged = new AtomicBoolean();
    private volatile NameWatch watch;
    private volatile StreamPool leavingTipc; // null: no streams to close
    private volatile long tcpAbove; // 0: every size stays on TIPC
    private volatile TipcIslands islands; // null: one TIPC cluster spans the Hadoop cluster
    private final Set<String> otherIslandHosts = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean largeOutputs = new AtomicBoolean();
    /** True while every host goes over HTTP/TCP until a map output shows its size; set once, cleared once. */
    private volatile boolean sizeUnknown;
    /** The task's configuration while its TIPC side waits for a small map output to start; null once started. */
    private Configuration deferredStart; // guarded by largeOutputs
    /** What runs once the TIPC side has started (node loss acted on); null: nothing, or it has run. */
    private Runnable afterTipcStart; // guarded by largeOutputs
    /** With a probe ({@link FirstFetches#PROBE}): opened once the size is known or the wait is over; null: no probe. */
    private volatile CountDownLatch probeAnswered;
    private final AtomicBoolean probeTaken = new AtomicBoolean();
    private volatile long probeWaitMillis = TipcShuffleConfig.DEFAULT_PROBE_WAIT_MS;
    private final AtomicBoolean backAfterHoldLogged = new AtomicBoolean();
    /** Closes the streams of fetches whose proof is overdue: one thread per task, not one per read. */
    private final ScheduledThreadPoolExecutor proofTimer = new ScheduledThreadPoolExecutor(1, new ProofTimerThreads());
    private volatile long proofSocketMillis = TipcShuffleConfig.DEFAULT_PROOF_SOCKET_TIMEOUT_MS;
    private volatile long proofMillis = TipcShuffleConfig.DEFAULT_PROOF_TIMEOUT_MS;
    private volatile long holdMillis = TipcShuffleConfig.DEFAULT_UNPROVEN_HOLD_MS;
    private volatile NodeLoss nodeLoss; // null: node loss is not acted on

    TransportRoutes(Transport mode, TipcAvailability availability, TransferCounters counters) {
        this.mode = mode;
        this.availability = availability;
        this.counters = counters;
        proofTimer.setRemoveOnCancelPolicy(true); // a deadline met leaves nothing queued
        proofTimer.setKeepAliveTime(1, TimeUnit.MINUTES);
        proofTimer.allowCoreThreadTimeOut(true);
    }

    /**
     * Routes for a reduce task as configured, following the topology service where TIPC is used and it is on. With
     * the first fetches over HTTP/TCP, the TIPC side (the native library, the topology connection) starts only when a
     * map output shows the task's partitions small.
     */
    static TransportRoutes start(Configuration conf, TransferCounters counters) {
        Transport mode = Transport.of(conf);
        TransportRoutes routes = new TransportRoutes(mode, null, counters);
        if (mode == Transport.TCP) {
            return routes;
        }
        routes.proofBounds(conf.getLong(TipcShuffleConfig.PROOF_SOCKET_TIMEOUT_MS,
                        TipcShuffleConfig.DEFAULT_PROOF_SOCKET_TIMEOUT_MS),
                conf.getLong(TipcShuffleConfig.PROOF_TIMEOUT_MS, TipcShuffleConfig.DEFAULT_PROOF_TIMEOUT_MS),
                conf.getLong(TipcShuffleConfig.UNPROVEN_HOLD_MS, TipcShuffleConfig.DEFAULT_UNPROVEN_HOLD_MS));
        routes.tcpAbove(conf.getLong(TipcShuffleConfig.TCP_ABOVE_BYTES, TipcShuffleConfig.DEFAULT_TCP_ABOVE_BYTES));
        routes.probeWait(conf.getLong(TipcShuffleConfig.PROBE_WAIT_MS, TipcShuffleConfig.DEFAULT_PROBE_WAIT_MS));
        routes.firstFetches(FirstFetches.of(conf));
        if (routes.sizeUnknown && routes.probeAnswered == null) {
            routes.deferredStart = conf;
        } else {
            routes.startTipc(conf);
        }
        return routes;
    }

    /** Whether the TIPC side has started: whether TIPC can be used is known. */
    boolean tipcStarted() {
        return availability != null;
    }

    /**
     * Runs {@code then} once the TIPC side has started: now if it has, else when a small map output starts it, and
     * never for a task that stays on HTTP/TCP (no host of it is ever proven on TIPC).
     */
    void whenTipcStarted(Runnable then) {
        synchronized (largeOutputs) {
            if (availability == null) {
                afterTipcStart = then;
                return;
            }
        }
        then.run();
    }

    /**
     * Finds whether TIPC can be used and, with the topology service on, follows the map hosts' names; then runs what
     * waits for that ({@link #whenTipcStarted}).
     */
    private void startTipc(Configuration conf) {
        followNames(conf);
        Runnable then;
        synchronized (largeOutputs) {
            then = afterTipcStart;
            afterTipcStart = null;
        }
        if (then != null) {
            then.run();
        }
    }

    private void followNames(Configuration conf) {
        if (!conf.getBoolean(TipcShuffleConfig.TOPOLOGY_ENABLED, TipcShuffleConfig.DEFAULT_TOPOLOGY_ENABLED)) {
            availability = Tipc.availability();
            return;
        }
        // One topology connection says whether TIPC links are up, then reports the map hosts' names.
        TipcTopologyChannel topology = null;
        try {
            topology = TipcTopologyChannel.open();
            availability = Tipc.availability(topology);
            follow(TipcNameWatch.start(TipcShuffleConfig.serviceType(conf), this, topology));
        } catch (IOException e) {
            closeQuietly(topology);
            TipcAvailability unwatched = Tipc.availability(); // says why, when TIPC is unavailable
            if (unwatched.isAvailable()) {
                LOG.warn("TIPC topology service unreachable ({}): a host that falls back to HTTP/TCP stays there",
                        e.toString());
            }
            availability = unwatched;
        }
    }

    private static void closeQuietly(TipcTopologyChannel topology) {
        if (topology != null) {
            try {
                topology.close();
            } catch (IOException e) {
                LOG.debug("closing the TIPC topology connection", e);
            }
        }
    }

    /** Takes reports from {@code names} from now on; closed with the routes. */
    void follow(NameWatch names) {
        this.watch = names;
    }

    /**
     * How long each socket a fetch tries has to send a proven response head, how long the whole TIPC attempt
     * has, and how long a host that fell back before a proof stays on HTTP/TCP (each positive, in ms).
     */
    void proofBounds(long socketMillis, long attemptMillis, long unprovenHoldMillis) {
        if (socketMillis <= 0 || attemptMillis <= 0 || unprovenHoldMillis <= 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.PROOF_SOCKET_TIMEOUT_MS + ", "
                    + TipcShuffleConfig.PROOF_TIMEOUT_MS + " and " + TipcShuffleConfig.UNPROVEN_HOLD_MS
                    + " must be positive: " + socketMillis + ", " + attemptMillis + ", " + unprovenHoldMillis);
        }
        this.proofSocketMillis = socketMillis;
        this.proofMillis = attemptMillis;
        this.holdMillis = unprovenHoldMillis;
    }

    long proofSocketMillis() {
        return proofSocketMillis;
    }

    long proofMillis() {
        return proofMillis;
    }

    /** Runs {@code overdue} on the task's proof timer after {@code millis}, unless cancelled first. */
    ScheduledFuture<?> proofDue(Runnable overdue, long millis) {
        return proofTimer.schedule(overdue, millis, TimeUnit.MILLISECONDS);
    }

    /** Sends every host over HTTP/TCP once a map output of more than {@code bytes} is under way over TIPC; 0: never. */
    void tcpAbove(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.TCP_ABOVE_BYTES + " must be 0 or more, not " + bytes);
        }
        this.tcpAbove = bytes;
    }

    /**
     * The size above which a map output under way over TIPC goes over HTTP/TCP, as a request tells the server
     * ({@link TipcShuffleConfig#TCP_ABOVE_HEADER}) so that it ends the response at such an output's header; 0: none.
     */
    long tcpAbove() {
        return mode == Transport.AUTO ? tcpAbove : 0;
    }

    /**
     * Where fetches go before a map output has shown its size: with {@link FirstFetches#TCP} (in {@code auto} mode,
     * with a {@link #tcpAbove} threshold set first), over HTTP/TCP until {@link #sizeSeen}.
     */
    void firstFetches(FirstFetches first) {
        sizeUnknown = first != FirstFetches.TIPC && mode == Transport.AUTO && tcpAbove > 0;
        probeAnswered = sizeUnknown && first == FirstFetches.PROBE ? new CountDownLatch(1) : null;
    }

    /** How long fetches wait for the probe's first map output header before they go on over TIPC (positive, in ms). */
    void probeWait(long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.PROBE_WAIT_MS + " must be positive, not " + millis);
        }
        this.probeWaitMillis = millis;
    }

    /** True until a map output shows the task's size: fetches go over HTTP/TCP meanwhile, or wait for a probe. */
    boolean sizeUnknown() {
        return sizeUnknown;
    }

    /**
     * A map output of {@code bytes} from {@code host} has arrived (over HTTP/TCP, or the probe's over TIPC). The first
     * while the size is unknown chooses the task's transport: TIPC if it is at most {@link #tcpAbove}, else HTTP/TCP
     * for the rest of the task.
     */
    void sizeSeen(String host, long bytes) {
        if (!sizeUnknown) {
            return;
        }
        synchronized (largeOutputs) {
            if (!sizeUnknown) {
                return; // another fetch's output chose first
            }
            long above = tcpAbove;
            if (bytes > above) {
                largeOutputs.set(true); // before the size is known, so that no route goes to TIPC meanwhile
                LOG.info("Shuffle stays on HTTP/TCP for the rest of this task: its first map output, {} bytes from {},"
                        + " is larger than {} ({})", bytes, host, TipcShuffleConfig.TCP_ABOVE_BYTES, above);
            } else {
                LOG.info("Shuffle goes over TIPC from now on: its first map output, {} bytes from {}, is not larger"
                        + " than {} ({})", bytes, host, TipcShuffleConfig.TCP_ABOVE_BYTES, above);
                if (deferredStart != null) {
                    startTipc(deferredStart); // while other fetches still go over HTTP/TCP
                }
            }
            sizeKnown();
        }
    }

    /** The task's first map output has shown its size (or the probe's wait is over): fetches route by it from now on. */
    private void sizeKnown() {
        synchronized (largeOutputs) {
            deferredStart = null;
            sizeUnknown = false;
        }
        CountDownLatch known = probeAnswered;
        if (known != null) {
            known.countDown();
        }
    }

    /**
     * Whether a fetch may be routed while the size is unknown: with a probe, the first fetch is the probe, and the
     * others wait for its first map output's header, at most {@link #probeWaitMillis}, after which they go on over TIPC
     * as without a probe. A stream opened ahead neither probes nor waits.
     */
    private boolean routedBeforeSize(URL url, boolean fetch) throws InterruptedIOException {
        CountDownLatch known = probeAnswered;
        if (known == null || !fetch) {
            return false;
        }
        TipcAvailability tipc = availability;
        if (tipc != null && !tipc.isAvailable()) {
            sizeKnown(); // no TIPC to probe or to choose: no fetch waits
            return true;
        }
        if (probeTaken.compareAndSet(false, true)) {
            LOG.info("Shuffle probes the size of this task's map outputs with one fetch over TIPC from {}; its other"
                    + " fetches wait for the probe's first header, at most {} ms ({})", url.getHost(), probeWaitMillis,
                    TipcShuffleConfig.PROBE_WAIT_MS);
            return true;
        }
        try {
            if (!known.await(probeWaitMillis, TimeUnit.MILLISECONDS)) {
                synchronized (largeOutputs) {
                    if (sizeUnknown) {
                        LOG.info("Shuffle goes on over TIPC: the probe showed no map output's size within {} ms ({})",
                                probeWaitMillis, TipcShuffleConfig.PROBE_WAIT_MS);
                        sizeKnown();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the TIPC probe's map output size");
        }
        return true;
    }

    /** Sends hosts outside this node's TIPC island over HTTP/TCP, without a TIPC attempt, by choice rather than failure. */
    void islands(TipcIslands islands) {
        if (islands.enabled()) {
            this.islands = islands;
            LOG.info("This node is in TIPC island {} ({} = {}): map hosts of other islands go over HTTP/TCP",
                    islands.own(), TipcShuffleConfig.ISLAND_LEVEL, islands.level());
        }
    }

    /** Closes {@code streams}' idle streams to each host switched to HTTP/TCP, after the switch. */
    void onLeavingTipc(StreamPool streams) {
        this.leavingTipc = streams;
    }

    Transport mode() {
        return mode;
    }

    /** The route of a fetch to {@code url}'s host. */
    Route route(URL url) throws IOException {
        return route(url, true);
    }

    /** The route of a stream opened ahead to {@code url}'s host: as a fetch's, but never the probe nor waiting for it. */
    Route routeAhead(URL url) throws IOException {
        return route(url, false);
    }

    private Route route(URL url, boolean fetch) throws IOException {
        if (mode == Transport.TCP) {
            return new Route(null, Fallback.CONFIGURED, 0);
        }
        failIfNodeLost(url, null);
        if (sizeUnknown && !routedBeforeSize(url, fetch)) {
            return new Route(null, Fallback.SIZE_UNKNOWN, 0);
        }
        TipcAvailability tipc = availability;
        if (tipc == null) {
            return new Route(null, Fallback.LARGE_OUTPUTS, 0); // a bulk task whose TIPC side never started
        }
        if (!tipc.isAvailable()) {
            if (mode == Transport.TIPC) {
                throw new IOException("mapreduce.shuffle.tipc.transport is tipc, but " + tipc.reason());
            }
            if (unavailableLogged.compareAndSet(false, true)) {
                LOG.warn("Shuffle goes over HTTP/TCP: {}", tipc.reason());
            }
            return new Route(null, Fallback.TIPC_UNAVAILABLE, 0);
        }
        TipcIslands archipelago = islands;
        if (archipelago != null && !archipelago.sameIsland(url.getHost())) {
            return otherIsland(archipelago, url.getHost());
        }
        ShuffleServiceName name = ShuffleServiceName.of(InetAddress.getByName(url.getHost()), url.getPort());
        Host host = host(name);
        synchronized (host) {
            if (host.tcpBecause != null && host.tcpBecause.unproven && System.nanoTime() - host.heldUntil >= 0) {
                backAfterHold(name, host);
            }
            Fallback why = host.tcpBecause == null && largeOutputs.get() ? Fallback.LARGE_OUTPUTS : host.tcpBecause;
            return new Route(why == null ? name : null, why, host.publications);
        }
    }

    private void backAfterHold(ShuffleServiceName name, Host host) {
        Fallback why = host.tcpBecause;
        host.tcpBecause = null;
        counters.routeBackAfterHold();
        if (backAfterHoldLogged.compareAndSet(false, true)) {
            LOG.info("Shuffle from {} goes over TIPC again after {} ms on HTTP/TCP ({}); each such return counted"
                    + " in {}, logged once", name, holdMillis, why.reason, TipcShuffleCounter.ROUTES_BACK_AFTER_HOLD);
        }
    }

    private Route otherIsland(TipcIslands archipelago, String host) throws IOException {
        String where = host + " is in TIPC island " + archipelago.islandOf(host) + ", this node in " + archipelago.own();
        if (mode == Transport.TIPC) {
            throw new IOException("mapreduce.shuffle.tipc.transport is tipc, but " + where);
        }
        if (otherIslandHosts.add(host)) {
            LOG.info("Shuffle from {} goes over HTTP/TCP: {}", host, where);
        }
        return new Route(null, Fallback.OTHER_ISLAND, 0);
    }

    /**
     * True when a map output of {@code bytes}, whose header came over TIPC from {@code route}'s host, should
     * rather come over HTTP/TCP: above {@link #tcpAbove}, and then every host goes over HTTP/TCP.
     */
    boolean tcpFor(Route route, long bytes) {
        long above = tcpAbove;
        if (above == 0 || bytes <= above || mode != Transport.AUTO) {
            return false; // a small output under way: it chooses once it has arrived (sizeSeen)
        }
        if (largeOutputs.compareAndSet(false, true)) {
            LOG.info("Shuffle goes over HTTP/TCP for the rest of this task: a map output of {} bytes from {} is larger"
                    + " than {} ({})", bytes, route.name(), TipcShuffleConfig.TCP_ABOVE_BYTES, above);
        }
        if (sizeUnknown) {
            sizeKnown(); // the probe's: the fetches waiting for it go over HTTP/TCP
        }
        return true;
    }

    /** TIPC failed on {@code route}: its host goes over HTTP/TCP, unless its name was published since. */
    void fellBack(Route route, Fallback why, Exception cause) {
        Host host = hosts.get(route.name());
        synchronized (host) {
            if (host.publications == route.publications()) {
                toTcp(route.name(), host, why, cause == null ? "" : cause.getMessage());
            }
        }
    }

    /** Tells {@code loss} of the topology's node reports and of the nodes that proved for each host, from now on. */
    void actOnNodeLoss(NodeLoss loss) {
        this.nodeLoss = loss;
    }

    /** A socket whose identity is {@code server} proved it holds the job token for {@code url}'s host ({@code name}). */
    void proved(URL url, ShuffleServiceName name, String server) {
        NodeLoss loss = nodeLoss;
        Integer node = NodeLoss.nodeOf(server);
        if (loss != null && node != null) {
            loss.proved(NodeLoss.key(url.getHost(), url.getPort()), name, node);
        }
    }

    /**
     * Throws when {@code url}'s host is held because its TIPC node was lost: its fetch fails at once, neither over
     * TIPC nor over HTTP/TCP, where a connect to a dead host would wait out the stock timeouts.
     */
    void failIfNodeLost(URL url, IOException cause) throws IOException {
        NodeLoss loss = nodeLoss;
        if (loss != null && loss.holds(NodeLoss.key(url.getHost(), url.getPort()))) {
            IOException e = new IOException(url.getHost() + ":" + url.getPort()
                    + ": TIPC lost every link to the host's node; its fetches wait for a decision");
            if (cause != null) {
                e.addSuppressed(cause);
            }
            throw e;
        }
    }

    @Override
    public void nodeUp(int node) {
        NodeLoss loss = nodeLoss;
        if (loss != null) {
            loss.nodeUp(node);
        }
    }

    @Override
    public void published(ShuffleServiceName name) {
        NodeLoss loss = nodeLoss;
        if (loss != null) {
            loss.published(name);
        }
        Host host = hosts.get(name);
        if (host == null) {
            return; // not a map host of this task
        }
        synchronized (host) {
            if (host.publications++ == 0) {
                LOG.info("Shuffle from {}: its TIPC name is published", name);
            }
            if (host.tcpBecause != null) {
                host.tcpBecause = null;
                counters.routeBackToTipc();
                LOG.info("Shuffle from {} goes over TIPC again: its TIPC name is published", name);
            }
        }
    }

    @Override
    public void withdrawn(ShuffleServiceName name) {
        Host host = hosts.get(name);
        if (host == null) {
            return; // not a map host of this task
        }
        if (mode == Transport.TIPC) {
            tipcOnlyWithdrawn(name);
            return;
        }
        synchronized (host) {
            toTcp(name, host, Fallback.WITHDRAWN, "reported by the TIPC topology service");
        }
    }

    /**
     * With {@code transport=tipc} a withdrawn name sends no host to HTTP/TCP: its next fetch tries TIPC and, if the
     * name is still not published, fails under the stock retry rules as every TIPC failure does in that mode. Its
     * idle streams are closed, since the server that kept them is gone.
     */
    private void tipcOnlyWithdrawn(ShuffleServiceName name) {
        LOG.warn("Shuffle from {}: its TIPC name was withdrawn; {} is tipc, so its fetches stay on TIPC and fail while"
                + " it is not published", name, TipcShuffleConfig.TRANSPORT);
        StreamPool streams = leavingTipc;
        if (streams != null) {
            streams.closeIdle(name);
        }
    }

    @Override
    public void nodeLost(int node) {
        counters.peerLost();
        LOG.warn("TIPC lost every link to node <{}>", Integer.toHexString(node));
        NodeLoss loss = nodeLoss;
        if (loss != null) {
            loss.nodeLost(node);
        }
    }

    @Override
    public void close() throws IOException {
        proofTimer.shutdownNow();
        NameWatch w = watch;
        if (w != null) {
            w.close();
        }
    }

    private Host host(ShuffleServiceName name) {
        Host host = hosts.get(name);
        if (host == null) {
            Host created = new Host();
            host = hosts.putIfAbsent(name, created);
            if (host == null) {
                host = created;
                NameWatch w = watch;
                if (w != null) {
                    try {
                        w.watch(name);
                    } catch (IOException e) {
                        LOG.warn("Cannot follow {}'s TIPC name ({}): if it falls back to HTTP/TCP it stays there",
                                name, e.toString());
                    }
                }
            }
        }
        return host;
    }

    private void toTcp(ShuffleServiceName name, Host host, Fallback why, String detail) {
        if (host.tcpBecause != null) {
            return;
        }
        host.tcpBecause = why;
        counters.routeToTcp();
        String until;
        if (why.unproven) {
            host.heldUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMillis);
            until = "for " + holdMillis + " ms" + (watch == null ? "" : " or until its TIPC name is published again");
        } else {
            until = watch == null ? "for the rest of this task" : "until its TIPC name is published again";
        }
        LOG.warn("Shuffle from {} goes over HTTP/TCP {}: {} ({})", name, until, why.reason, detail);
        StreamPool streams = leavingTipc;
        if (streams != null) {
            streams.closeIdle(name);
        }
    }
}
