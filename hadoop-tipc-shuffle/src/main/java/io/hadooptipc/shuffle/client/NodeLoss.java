package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What a reduce task does when TIPC's topology service reports that every link to a node is down, for the map
 * hosts that node served. A host is tied to a node only by a TIPC exchange in which the node's socket proved it
 * holds the job token ({@link #proved}): any process on any node may bind a host's name, and a squatter's node
 * dying must not condemn the host.
 * <p>
 * On the loss, each such host is <em>held</em> at once: its fetches fail at once, without counting as stock copy
 * failures, and its TIPC streams are closed ({@link Hosts#held}). After {@link #holdDownMillis} (in which the
 * node's links may come back: a flap), unless this node's own fault explains the loss (every link lost, or at
 * least two peers and half or more of them lost in the hold-down window), a short TCP connect to the host's
 * shuffle port decides: the host answers (a TIPC bearer or link failed, IP works), and it is released to be
 * fetched from over HTTP/TCP as today; it does not, and the host is <em>lost</em> ({@link Hosts#lost}): its map
 * outputs are reported to the ApplicationMaster. A held or lost host whose node comes back (its links up again,
 * and its name published again) is released.
 * <p>
 * A plain class: the probe, the timer and the clock are given, so that host tests drive it by hand. Callbacks to
 * {@link Hosts} run outside this object's lock.
 */
final class NodeLoss {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLoss.class);

    /** The reduce task's side of node loss: the scheduler. */
    interface Hosts {
        /** {@code host}'s node was lost: fetch nothing from it, and fail its fetches at once, until told. */
        void held(String host);

        /** {@code host} is lost with its node: report its outstanding map outputs; {@code since} the loss report. */
        void lost(String host, int node, long sinceMillis);

        /** {@code host} is still lost, a report interval later: report its map outputs still outstanding again. */
        void stillLost(String host);

        /** {@code host} may be fetched from again (over HTTP/TCP if its name is still withdrawn). */
        void released(String host);
    }

    /** A short TCP connect to a host's shuffle port. */
    interface HostProbe {
        /** True when the host's kernel answered within {@code timeoutMillis}: a connection, or a refusal. */
        boolean answers(String host, int port, int timeoutMillis);
    }

    /** Runs a task later, on one thread of its own (a probe blocks it for up to its timeout). */
    interface Delays {
        void after(long millis, Runnable task);
    }

    /** Closes every TIPC stream, in use or idle, to a host's name. */
    interface Streams {
        void closeAll(ShuffleServiceName name);
    }

    private enum State { OK, HELD, LOST }

    private static final class Host {
        final String key;
        int node;
        ShuffleServiceName name;
        State state = State.OK;
        long lossAt;
        boolean nodeBack;
        boolean nameBack;
        boolean logged;

        Host(String key) {
            this.key = key;
        }
    }

    private final Hosts hosts;
    private final HostProbe probe;
    private final Delays delays;
    private final LongSupplier clock;
    private final TransferCounters counters;
    private final long holdDownMillis;
    private final int probeTimeoutMillis;
    private final long reportIntervalMillis;
    private final int self;
    private final Map<String, Host> byKey = new HashMap<>(); // guarded by this
    private final Set<Integer> upPeers = new HashSet<>(); // guarded by this
    /** When each peer's loss was last reported, pruned to the last two hold-downs. */
    private final Map<Integer, Long> losses = new HashMap<>(); // guarded by this
    private volatile Streams streams;
    private boolean localFaultLogged; // guarded by this

    NodeLoss(Hosts hosts, HostProbe probe, Delays delays, LongSupplier clock, TransferCounters counters,
             long holdDownMillis, int probeTimeoutMillis, long reportIntervalMillis, int self) {
        if (holdDownMillis < 0 || probeTimeoutMillis <= 0 || reportIntervalMillis <= 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.NODE_LOSS_HOLD_DOWN_MS + " must not be negative and "
                    + TipcShuffleConfig.NODE_LOSS_PROBE_TIMEOUT_MS + " must be positive: " + holdDownMillis + ", "
                    + probeTimeoutMillis);
        }
        this.reportIntervalMillis = reportIntervalMillis;
        this.hosts = hosts;
        this.probe = probe;
        this.delays = delays;
        this.clock = clock;
        this.counters = counters;
        this.holdDownMillis = holdDownMillis;
        this.probeTimeoutMillis = probeTimeoutMillis;
        this.self = self;
    }

    /** Closes a held host's TIPC streams through {@code s} from now on. */
    void closeStreamsWith(Streams s) {
        this.streams = s;
    }

    /** The key a host goes by here and in the stock scheduler: {@code host:port} of its shuffle URL. */
    static String key(String host, int port) {
        return host + ":" + port;
    }

    /**
     * The node of a server socket's identity as {@link ShuffleStream#server()} gives it, {@code tipc:<node:ref>}
     * with the node in hex; null when it names no TIPC socket.
     */
    static Integer nodeOf(String server) {
        if (server == null || !server.startsWith("tipc:<") || !server.endsWith(">")) {
            return null;
        }
        int colon = server.indexOf(':', 6);
        if (colon < 0) {
            return null;
        }
        try {
            return Integer.parseUnsignedInt(server.substring(6, colon), 16);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A socket of {@code node} proved it holds the job token for {@code host}, whose TIPC name is {@code name}. */
    void proved(String host, ShuffleServiceName name, int node) {
        synchronized (this) {
            Host h = byKey.get(host);
            if (h == null) {
                h = new Host(host);
                byKey.put(host, h);
            }
            if (h.state == State.OK) {
                h.node = node;
                h.name = name;
            }
        }
    }

    /** Whether {@code host}'s fetches must fail at once: its node was lost and it is not released. */
    synchronized boolean holds(String host) {
        Host h = byKey.get(host);
        return h != null && h.state != State.OK;
    }

    /** The topology service reports links up to {@code node} (at its start, for every node linked then). */
    void nodeUp(int node) {
        if (node == self) {
            return;
        }
        List<String> released = new ArrayList<>();
        synchronized (this) {
            upPeers.add(node);
            for (Host h : byKey.values()) {
                if (h.state != State.OK && h.node == node) {
                    h.nodeBack = true;
                    releaseIfBack(h, released);
                }
            }
        }
        tellReleased(released);
    }

    /** The topology service reports {@code name} published (a NodeManager serving, on a node linked to this one). */
    void published(ShuffleServiceName name) {
        List<String> released = new ArrayList<>();
        synchronized (this) {
            for (Host h : byKey.values()) {
                if (h.state != State.OK && name.equals(h.name)) {
                    h.nameBack = true;
                    releaseIfBack(h, released);
                }
            }
        }
        tellReleased(released);
    }

    /** The topology service reports every link to {@code node} down. */
    void nodeLost(int node) {
        if (node == self) {
            return;
        }
        long now = clock.getAsLong();
        List<Host> held = new ArrayList<>();
        synchronized (this) {
            upPeers.remove(node);
            losses.put(node, now);
            for (Iterator<Long> it = losses.values().iterator(); it.hasNext(); ) {
                if (now - it.next() > 2 * holdDownMillis) {
                    it.remove();
                }
            }
            for (Host h : byKey.values()) {
                if (h.state == State.OK && h.name != null && h.node == node) {
                    h.state = State.HELD;
                    h.lossAt = now;
                    h.nodeBack = false;
                    h.nameBack = false;
                    held.add(h);
                }
            }
        }
        for (Host h : held) {
            LOG.warn("Shuffle from {}: TIPC lost every link to node <{}>, whose socket served it; its fetches wait"
                    + " {} ms for the links to come back, then a TCP connect to it decides", h.key,
                    Integer.toHexString(node), holdDownMillis);
            hosts.held(h.key);
            Streams s = streams;
            if (s != null) {
                s.closeAll(h.name);
            }
            delays.after(holdDownMillis, new Decide(h, now));
        }
    }

    /** At the end of a host's hold-down: its node back, a local fault, reachable over TCP, or lost. */
    private final class Decide implements Runnable {
        private final Host host;
        private final long lossAt;

        Decide(Host host, long lossAt) {
            this.host = host;
            this.lossAt = lossAt;
        }

        @Override
        public void run() {
            decide(host, lossAt);
        }
    }

    private void decide(Host h, long lossAt) {
        String localFault;
        int node;
        synchronized (this) {
            if (h.state != State.HELD || h.lossAt != lossAt) {
                return; // released meanwhile, or lost again later with a decision of its own
            }
            node = h.node;
            localFault = localFault(lossAt);
            if (localFault != null) {
                h.state = State.OK;
                if (!localFaultLogged) {
                    localFaultLogged = true;
                    LOG.warn("TIPC lost {}: a fault of this node, not many dead peers; map hosts of lost nodes are"
                            + " fetched from under the stock rules, none reported lost (logged once)", localFault);
                }
            }
        }
        if (localFault != null) {
            counters.nodeLossLocalFault();
            hosts.released(h.key);
            return;
        }
        String[] hostPort = splitKey(h.key);
        boolean answers = probe.answers(hostPort[0], Integer.parseInt(hostPort[1]), probeTimeoutMillis);
        long since = clock.getAsLong() - lossAt;
        synchronized (this) {
            if (h.state != State.HELD || h.lossAt != lossAt) {
                return; // its node came back during the probe
            }
            h.state = answers ? State.OK : State.LOST;
        }
        if (answers) {
            counters.nodeLossReachableOverTcp();
            LOG.warn("Shuffle from {}: TIPC lost node <{}>, but the host's shuffle port answers over TCP; it is"
                    + " fetched from over HTTP/TCP", h.key, Integer.toHexString(node));
            hosts.released(h.key);
        } else {
            boolean first;
            synchronized (this) {
                first = !h.logged;
                h.logged = true;
            }
            if (first) {
                LOG.warn("Shuffle from {}: lost with TIPC node <{}> (no TCP connect to its shuffle port within {} ms,"
                        + " {} ms after TIPC's report); its map outputs are reported to the ApplicationMaster",
                        h.key, Integer.toHexString(node), probeTimeoutMillis, since);
            }
            counters.hostLost(since);
            hosts.lost(h.key, node, since);
            delays.after(reportIntervalMillis, new ReportAgain(h, lossAt));
        }
    }

    /** A lost host's outstanding map outputs reported again, every report interval while it stays lost. */
    private final class ReportAgain implements Runnable {
        private final Host host;
        private final long lossAt;

        ReportAgain(Host host, long lossAt) {
            this.host = host;
            this.lossAt = lossAt;
        }

        @Override
        public void run() {
            synchronized (NodeLoss.this) {
                if (host.state != State.LOST || host.lossAt != lossAt) {
                    return;
                }
            }
            hosts.stillLost(host.key);
            delays.after(reportIntervalMillis, this);
        }
    }

    /** Why the loss at {@code lossAt} looks like this node's own fault, or null. */
    private String localFault(long lossAt) {
        if (upPeers.isEmpty()) {
            return "every link of this node";
        }
        int lostInWindow = 0;
        int lostAndDown = 0;
        for (Map.Entry<Integer, Long> loss : losses.entrySet()) {
            if (Math.abs(loss.getValue() - lossAt) <= holdDownMillis) {
                lostInWindow++;
                if (!upPeers.contains(loss.getKey())) {
                    lostAndDown++;
                }
            }
        }
        int peers = upPeers.size() + lostAndDown;
        if (lostInWindow >= 2 && 2 * lostInWindow >= peers) {
            return "the links to " + lostInWindow + " of its " + peers + " peer nodes within " + holdDownMillis + " ms";
        }
        return null;
    }

    private void releaseIfBack(Host h, List<String> released) {
        if (h.nodeBack && h.nameBack) {
            boolean wasLost = h.state == State.LOST;
            h.state = State.OK;
            released.add(h.key);
            LOG.info("Shuffle from {}: node <{}> is linked again and the host's name published; it is fetched from"
                    + " again{}", h.key, Integer.toHexString(h.node), wasLost ? " (it had been reported lost)" : "");
        }
    }

    private void tellReleased(List<String> released) {
        for (String key : released) {
            counters.hostBackAfterLoss();
            hosts.released(key);
        }
    }

    private static String[] splitKey(String key) {
        int colon = key.lastIndexOf(':');
        return new String[] {key.substring(0, colon), key.substring(colon + 1)};
    }
}
