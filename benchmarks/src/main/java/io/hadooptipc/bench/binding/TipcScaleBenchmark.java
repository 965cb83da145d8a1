package io.hadooptipc.bench.binding;

import io.hadooptipc.bench.common.Charts;
import io.hadooptipc.bench.common.LeastSquares;
import io.hadooptipc.bench.common.LeastSquares.Fit;
import io.hadooptipc.bench.common.LeastSquares.Model;
import io.hadooptipc.bench.common.Results;
import io.hadooptipc.bench.common.Stats;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcTopologyChannel;
import io.hadooptipc.tipc.TipcTopologyEvent;
import org.knowm.xchart.XYChart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * How TIPC's cluster machinery grows with the number of nodes N: link set-up, the name table a joining node
 * receives, the spread of one publication, the topology events a NodeManager restart causes at every subscriber,
 * kernel memory per node, and a reducer's connect to a name. The nodes are namespaces n1..nM of one testbed guest
 * started without bearers (tipc-vm --no-bearers); this JVM has a thread in each (Testbed) and enables the first N
 * nodes' bearers for each N, so every N starts from no links. Every node keeps two topology subscriptions open from
 * the start, each stamping its events on arrival with the guest's one monotonic clock: one to node states and
 * every binding of the NodeManagers' names, one as our reducer subscribes (TipcNameWatch: node states, and the
 * first and last binding of one name per map host).
 * <pre>
 *   TipcScaleBenchmark OUT REPETITIONS CONNECTS N...    (needs max N + 1 testbed nodes: the last one joins)
 * </pre>
 */
public final class TipcScaleBenchmark {
    /** The NodeManagers' names: node i binds {NAME_TYPE, i·K + j}, j < K. */
    private static final int NAME_TYPE = 30501;
    private static final int PROBE_TYPE = 30502;
    private static final int CONNECT_TYPE = 30503;
    /**
     * Names per NodeManager: our shuffle server binds one name per address of the shuffle port that is not link-local
     * (ShuffleServiceName), so 1 on an IPv4-only host, 2-3 dual-stack, more when multi-homed; 4 covers those.
     */
    static final int NAMES_PER_NODE = 4;
    /** Publications of one name timed per repetition (each cheap next to a repetition's link set-up). */
    private static final int PROBES = 3;
    /**
     * After every bearer is disabled: long enough for the links' supervision to have given up on every peer (TIPC's
     * default link tolerance is 1.5 s), so the next N starts as a cold cluster rather than a flapping one.
     */
    private static final Duration QUIET = Duration.ofSeconds(3);
    private static final Duration DEADLINE = Duration.ofSeconds(180);
    /** Repeats a restart's count waits this long after the names are back, for events still on their way. */
    private static final Duration SETTLE = Duration.ofMillis(500);
    private static final int[] EXTRAPOLATE_TO = {1000, 5000};

    /** The measured metrics: CSV key, what it is, unit, and the model TIPC's mechanism suggests for it. */
    enum Metric {
        LINKS_UP("links_up_ms", "every node has links to the N-1 others, after the last bearer was enabled", "ms"),
        LINKS_UP_FROM_FIRST("links_up_from_first_enable_ms", "the same, after the first bearer was enabled "
                + "(adds the time the N bearer commands took)", "ms"),
        JOIN_NAMES("join_name_table_ms", "a new node's subscription has seen all N·K names, after its bearer "
                + "was enabled", "ms"),
        JOIN_LINKS("join_links_ms", "a new node has links to the N others, after its bearer was enabled", "ms"),
        PUBLICATION_REACH("publication_reach_ms", "one name bound on node N is reported on all N nodes", "ms"),
        WITHDRAWAL_REACH("withdrawal_reach_ms", "its withdrawal is reported on all N nodes", "ms"),
        RESTART_REACH("restart_reach_ms", "a NodeManager's K names withdrawn and bound again: all N nodes have them "
                + "back", "ms"),
        RESTART_EVENTS_REDUCER("restart_events_reducer", "topology events one restart gives each subscriber "
                + "subscribed as our reducer is (median over the N nodes)", "events"),
        RESTART_EVENTS_EVERY_BINDING("restart_events_every_binding", "the same for a subscriber to every binding "
                + "of the names' type", "events"),
        SLAB_PER_NODE("slab_kib_per_node", "kernel memory per node: unreclaimable slab (/proc/meminfo SUnreclaim, "
                + "where TIPC's links, buffers and name table live) with N nodes linked and their names bound, less "
                + "with no bearer, over N", "KiB"),
        CONNECT_MEDIAN("connect_median_us", "a reducer's connect and close of a stream socket to a name on another "
                + "node, median of a repetition's connects", "µs"),
        CONNECT_P90("connect_p90_us", "the same, 90th percentile of a repetition's connects", "µs");

        final String key;
        final String meaning;
        final String unit;

        Metric(String key, String meaning, String unit) {
            this.key = key;
            this.meaning = meaning;
            this.unit = unit;
        }
    }

    /** The cluster of N did not link up within the deadline: what limits N in this testbed, said in the summary. */
    static final class NotLinked extends Exception {
        NotLinked(String message) {
            super(message);
        }
    }

    /** One measured value: cluster size, repetition (probe-numbered for the reach metrics), metric, value. */
    record Sample(int n, int repetition, Metric metric, double value) {
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        int repetitions = Integer.parseInt(args[1]);
        int connects = Integer.parseInt(args[2]);
        int[] sizes = Arrays.stream(args, 3, args.length).mapToInt(Integer::parseInt).sorted().toArray();
        int max = sizes[sizes.length - 1];
        if (Testbed.nodeCount() < max + 1) {
            throw new IllegalArgumentException("N up to " + max + " needs " + (max + 1) + " testbed nodes (the last "
                    + "joins), the testbed has " + Testbed.nodeCount());
        }
        Cluster cluster = new Cluster(max + 1, max);
        List<Sample> samples = new ArrayList<>();
        ExecutorService commands = Executors.newFixedThreadPool(4);
        String unlinked = "";
        try {
            cluster.assignAddresses(commands);
            sizes:
            for (int n : sizes) {
                for (int r = 1; r <= repetitions; r++) {
                    long start = System.nanoTime();
                    try {
                        samples.addAll(cluster.repetition(n, r, connects, commands));
                    } catch (NotLinked e) {
                        unlinked = e.getMessage();
                        System.out.println(unlinked);
                        break sizes;
                    }
                    System.out.printf(Locale.ROOT, "N=%d repetition %d done in %.1f s%n", n, r,
                            (System.nanoTime() - start) / 1e9);
                }
            }
        } finally {
            commands.shutdown();
        }
        int[] measured = Arrays.stream(sizes).filter(n -> samples.stream().anyMatch(x -> x.n() == n)).toArray();
        report(out, samples, measured, repetitions, connects, String.format(Locale.ROOT, "The guest had %d MiB; the "
                + "least available (MemAvailable) with all N nodes linked and named was %d MiB.",
                cluster.memTotalKiB / 1024, cluster.leastAvailableKiB / 1024) + (unlinked.isEmpty() ? ""
                : " " + unlinked + " Larger N were not measured."));
    }

    /** The testbed's nodes, each with its two subscriptions and, while it is a NodeManager, its names. */
    static final class Cluster {
        private final Object lock = new Object();
        private final NodeView[] views;
        private final boolean[] bearerOn;
        /** The guest's memory, and the least of it available with all N nodes linked: what bounds N here. */
        long memTotalKiB;
        long leastAvailableKiB = Long.MAX_VALUE;

        Cluster(int nodes, int hosts) throws Exception {
            views = new NodeView[nodes + 1];
            bearerOn = new boolean[nodes + 1];
            for (int i = 1; i <= nodes; i++) {
                views[i] = new NodeView(i, hosts);
            }
        }

        /**
         * TIPC gives a node its address at its first bearer, after a trial period of discovery against duplicates:
         * a once-in-a-node's-life cost that would otherwise land in the first repetition at each new N. Done here
         * for every node, a group at a time so that not all of them link with each other.
         */
        void assignAddresses(ExecutorService commands) throws Exception {
            int group = 16;
            for (int from = 1; from < views.length; from += group) {
                int[] nodes = IntStream.range(from, Math.min(from + group, views.length)).toArray();
                enable(nodes, commands);
                for (int i : nodes) {
                    views[i].awaitAddress();
                }
                disable(nodes, commands);
            }
        }

        List<Sample> repetition(int n, int rep, int connects, ExecutorService commands) throws Exception {
            List<Sample> samples = new ArrayList<>();
            int[] members = IntStream.rangeClosed(1, n).toArray();
            int joiner = n + 1;
            disable(IntStream.range(1, views.length).filter(i -> bearerOn[i]).toArray(), commands);
            await("every node to see all its peers down", members, v -> v.peersUp() == 0);
            Thread.sleep(QUIET.toMillis());
            long slabBefore = slabKiB();

            long firstStart = System.nanoTime();
            long lastEnabled = Arrays.stream(enable(members, commands)).max().orElseThrow();
            try {
                await("links between all " + n + " nodes", members, v -> v.peersUp() == n - 1);
            } catch (IllegalStateException e) {
                double[] up;
                synchronized (lock) {
                    up = Arrays.stream(members).mapToDouble(i -> views[i].peersUp()).sorted().toArray();
                }
                throw new NotLinked(String.format(Locale.ROOT, "N=%d, repetition %d: the links did not all come up "
                        + "within %d s of the bearers; the nodes then had %.0f to %.0f peers up of %d, median %.0f.",
                        n, rep, DEADLINE.toSeconds(), up[0], up[up.length - 1], n - 1, Stats.median(Arrays.stream(up))));
            }
            long linked = Arrays.stream(members).mapToLong(i -> views[i].lastPeerChange()).max().orElseThrow();
            samples.add(new Sample(n, rep, Metric.LINKS_UP, (linked - lastEnabled) / 1e6));
            samples.add(new Sample(n, rep, Metric.LINKS_UP_FROM_FIRST, (linked - firstStart) / 1e6));
            if (rep == 1) {
                checkLinkList(1, n - 1);
                checkLinkList(n, n - 1);
            }

            for (int i : members) {
                views[i].bindNames();
            }
            int table = n * NAMES_PER_NODE;
            await("all " + table + " names on every node", members, v -> v.names() == table);
            samples.add(new Sample(n, rep, Metric.SLAB_PER_NODE, (slabKiB() - slabBefore) / (double) n));
            String meminfo = Files.readString(Path.of("/proc/meminfo"));
            leastAvailableKiB = Math.min(leastAvailableKiB, meminfoKiB(meminfo, "MemAvailable"));
            memTotalKiB = meminfoKiB(meminfo, "MemTotal");

            long joinEnabled = enable(new int[]{joiner}, commands)[0];
            NodeView newcomer = views[joiner];
            await("node " + joiner + " to join", new int[]{joiner}, v -> v.names() == table && v.peersUp() == n);
            samples.add(new Sample(n, rep, Metric.JOIN_NAMES, (newcomer.lastNameChange() - joinEnabled) / 1e6));
            samples.add(new Sample(n, rep, Metric.JOIN_LINKS, (newcomer.lastPeerChange() - joinEnabled) / 1e6));
            await("every node to see node " + joiner, members, v -> v.peersUp() == n);
            disable(new int[]{joiner}, commands);
            await("node " + joiner + " to be gone again", members, v -> v.peersUp() == n - 1);

            NodeView last = views[n];
            for (int p = 1; p <= PROBES; p++) {
                int probe = (rep - 1) * PROBES + p;
                long bound = last.bindProbe();
                await("the probe name on every node", members, v -> v.probeBound() && v.probeChange() >= bound);
                samples.add(new Sample(n, probe, Metric.PUBLICATION_REACH, (maxProbeChange(members) - bound) / 1e6));
                long unbound = last.unbindProbe();
                await("the probe's withdrawal on every node", members,
                        v -> !v.probeBound() && v.probeChange() >= unbound);
                samples.add(new Sample(n, probe, Metric.WITHDRAWAL_REACH, (maxProbeChange(members) - unbound) / 1e6));
            }

            Map<Integer, long[]> before = new TreeMap<>();
            for (int i : members) {
                before.put(i, views[i].eventCounts());
            }
            long restarted = last.restart();
            await("the restarted NodeManager's names back on every node", members,
                    v -> v.names() == table && v.withdrawals() >= before.get(v.index)[2] + NAMES_PER_NODE);
            long back = Arrays.stream(members).mapToLong(i -> views[i].lastNameChange()).max().orElseThrow();
            samples.add(new Sample(n, rep, Metric.RESTART_REACH, (back - restarted) / 1e6));
            Thread.sleep(SETTLE.toMillis());
            double[] reducer = new double[n];
            double[] everyBinding = new double[n];
            for (int i : members) {
                long[] now = views[i].eventCounts();
                reducer[i - 1] = now[0] - before.get(i)[0];
                everyBinding[i - 1] = now[1] - before.get(i)[1];
            }
            samples.add(new Sample(n, rep, Metric.RESTART_EVENTS_REDUCER, Stats.median(Arrays.stream(reducer))));
            samples.add(new Sample(n, rep, Metric.RESTART_EVENTS_EVERY_BINDING,
                    Stats.median(Arrays.stream(everyBinding))));

            double[] micros = connects(views[1].name, last.name, connects);
            Arrays.sort(micros);
            samples.add(new Sample(n, rep, Metric.CONNECT_MEDIAN, Stats.median(Arrays.stream(micros))));
            samples.add(new Sample(n, rep, Metric.CONNECT_P90, micros[(int) Math.ceil(0.9 * micros.length) - 1]));

            for (int i : members) {
                views[i].unbindNames();
            }
            return samples;
        }

        private long maxProbeChange(int[] members) {
            return Arrays.stream(members).mapToLong(i -> views[i].probeChange()).max().orElseThrow();
        }

        /** Enables the nodes' bearers, a few commands at a time; returns when each command had returned. */
        long[] enable(int[] nodes, ExecutorService commands) throws Exception {
            long[] done = bearer("enable", nodes, commands);
            for (int i : nodes) {
                bearerOn[i] = true;
            }
            return done;
        }

        void disable(int[] nodes, ExecutorService commands) throws Exception {
            bearer("disable", nodes, commands);
            for (int i : nodes) {
                bearerOn[i] = false;
            }
        }

        private long[] bearer(String action, int[] nodes, ExecutorService commands) throws Exception {
            List<Future<Long>> done = new ArrayList<>();
            for (int i : nodes) {
                done.add(commands.submit(() -> {
                    Testbed.output(Testbed.exec("n" + i, "tipc", "bearer", action, "media", "eth", "device", "eth0"),
                            Duration.ofSeconds(60));
                    return System.nanoTime();
                }));
            }
            long[] times = new long[nodes.length];
            for (int k = 0; k < nodes.length; k++) {
                times[k] = done.get(k).get();
            }
            return times;
        }

        /** Cross-checks the topology service's node events against iproute2's list of links. */
        private static void checkLinkList(int node, int expected) throws Exception {
            int up = linksUp(Testbed.output(Testbed.exec("n" + node, "tipc", "link", "list"), Duration.ofSeconds(60)));
            if (up != expected) {
                throw new IllegalStateException("n" + node + ": the topology service reported " + expected
                        + " peers up but tipc link list shows " + up + " links up");
            }
        }

        /** Waits until {@code done} holds for every node in {@code nodes}; fails naming those it does not hold for. */
        private void await(String what, int[] nodes, Predicate<NodeView> done) throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            synchronized (lock) {
                while (true) {
                    List<String> waiting = new ArrayList<>();
                    for (int i : nodes) {
                        if (!done.test(views[i])) {
                            waiting.add(views[i].toString());
                        }
                    }
                    if (waiting.isEmpty()) {
                        return;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("no " + what + " within " + DEADLINE.toSeconds() + " s; "
                                + "still waiting for " + waiting.subList(0, Math.min(8, waiting.size()))
                                + (waiting.size() > 8 ? " and " + (waiting.size() - 8) + " more" : ""));
                    }
                    lock.wait(Math.max(1, left / 1_000_000));
                }
            }
        }

        /** One node's view of the cluster, kept up to date by its subscriptions' reader threads. */
        final class NodeView {
            final int index;
            final String name;
            private int ownAddress;
            private final Set<Integer> peers = new HashSet<>();
            private final Map<Integer, Integer> bindings = new LinkedHashMap<>();
            private long lastPeerChange;
            private long lastNameChange;
            private long withdrawals;
            private long everyBindingEvents;
            private long reducerEvents;
            private boolean probeBound;
            private long probeChange;
            private TipcServerSocketChannel nodeManager;
            private TipcServerSocketChannel probe;

            NodeView(int index, int hosts) throws Exception {
                this.index = index;
                this.name = "n" + index;
                TipcTopologyChannel every = Testbed.on(name, TipcTopologyChannel::open);
                every.subscribe(TipcServiceRange.all(Tipc.NODE_STATE_SERVICE), TipcTopologyChannel.Mode.EVERY_BINDING);
                every.subscribe(TipcServiceRange.all(NAME_TYPE), TipcTopologyChannel.Mode.EVERY_BINDING);
                every.subscribe(TipcServiceRange.all(PROBE_TYPE), TipcTopologyChannel.Mode.EVERY_BINDING);
                TipcTopologyChannel reducer = Testbed.on(name, TipcTopologyChannel::open);
                reducer.subscribe(TipcServiceRange.all(Tipc.NODE_STATE_SERVICE), TipcTopologyChannel.Mode.EVERY_BINDING);
                for (int h = 1; h <= hosts; h++) {
                    reducer.subscribe(TipcServiceRange.of(TipcServiceAddress.of(NAME_TYPE, h * NAMES_PER_NODE)),
                            TipcTopologyChannel.Mode.FIRST_AND_LAST);
                }
                read(every, this::onEvent);
                read(reducer, e -> {
                    synchronized (lock) {
                        reducerEvents++;
                    }
                });
            }

            private void read(TipcTopologyChannel topology, Consumer<TipcTopologyEvent> handler) {
                Thread reader = new Thread(() -> {
                    try {
                        while (true) {
                            handler.accept(topology.receive());
                        }
                    } catch (IOException e) {
                        System.err.println(name + ": topology reports stopped: " + e);
                    }
                }, name + " topology");
                reader.setDaemon(true);
                reader.start();
            }

            private void onEvent(TipcTopologyEvent e) {
                long now = System.nanoTime();
                if (e.subscription() == null) {
                    return;
                }
                boolean published = e.kind() == TipcTopologyEvent.Kind.PUBLISHED;
                synchronized (lock) {
                    int type = e.subscription().range().type();
                    if (type == Tipc.NODE_STATE_SERVICE) {
                        if (e.lower() != ownAddress && (published ? peers.add(e.lower()) : peers.remove(e.lower()))) {
                            lastPeerChange = now;
                        }
                    } else if (type == NAME_TYPE) {
                        everyBindingEvents++;
                        bindings.merge(e.lower(), published ? 1 : -1, Integer::sum);
                        bindings.remove(e.lower(), 0);
                        if (!published) {
                            withdrawals++;
                        }
                        lastNameChange = now;
                    } else if (type == PROBE_TYPE) {
                        probeBound = published;
                        probeChange = now;
                    }
                    lock.notifyAll();
                }
            }

            void awaitAddress() throws Exception {
                long deadline = System.nanoTime() + DEADLINE.toNanos();
                int address;
                while ((address = Testbed.on(name, Tipc::ownNodeAddress)) == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(name + " got no TIPC address within " + DEADLINE.toSeconds()
                                + " s of its bearer");
                    }
                    Thread.sleep(100);
                }
                synchronized (lock) {
                    ownAddress = address;
                    peers.remove(address);
                }
            }

            int peersUp() {
                return peers.size();
            }

            long lastPeerChange() {
                return lastPeerChange;
            }

            int names() {
                return bindings.size();
            }

            long lastNameChange() {
                return lastNameChange;
            }

            long withdrawals() {
                return withdrawals;
            }

            boolean probeBound() {
                return probeBound;
            }

            long probeChange() {
                return probeChange;
            }

            /** Events so far: {reducer's, every binding's, withdrawals}. */
            long[] eventCounts() {
                synchronized (lock) {
                    return new long[]{reducerEvents, everyBindingEvents, withdrawals};
                }
            }

            /** Binds this NodeManager's K names, on one listening socket as our shuffle server does. */
            void bindNames() throws Exception {
                nodeManager = Testbed.on(name, () -> {
                    TipcServerSocketChannel listener = TipcServerSocketChannel.open();
                    for (int j = 0; j < NAMES_PER_NODE; j++) {
                        listener.bind(TipcServiceAddress.of(NAME_TYPE, index * NAMES_PER_NODE + j));
                    }
                    return listener;
                });
            }

            void unbindNames() throws IOException {
                nodeManager.close();
                nodeManager = null;
            }

            /** Withdraws the names (the NodeManager stops) and binds them again; returns when the withdrawal began. */
            long restart() throws Exception {
                long start = System.nanoTime();
                unbindNames();
                bindNames();
                return start;
            }

            /** Binds the probe name; returns the time just before. */
            long bindProbe() throws Exception {
                long start = System.nanoTime();
                probe = Testbed.on(name, () -> TipcServerSocketChannel.open().bind(TipcServiceAddress.of(PROBE_TYPE, 1)));
                return start;
            }

            long unbindProbe() throws IOException {
                long start = System.nanoTime();
                probe.close();
                return start;
            }

            @Override
            public String toString() {
                return String.format(Locale.ROOT, "%s (%d peers up, %d names)", name, peers.size(), bindings.size());
            }
        }
    }

    /** Microseconds of each of {@code count} connects and closes from node {@code client} to a server on {@code server}. */
    static double[] connects(String client, String server, int count) throws Exception {
        TipcServiceAddress address = TipcServiceAddress.of(CONNECT_TYPE, 1);
        try (TipcServerSocketChannel listener = Testbed.on(server, () -> TipcServerSocketChannel.open().bind(address))) {
            Future<Void> accepting = Testbed.start(server, () -> {
                for (int c = 0; c < count; c++) {
                    listener.accept().close();
                }
                return null;
            });
            Testbed.on(client, () -> Tipc.awaitPublished(address, DEADLINE));
            double[] micros = Testbed.on(client, () -> {
                double[] times = new double[count];
                for (int c = 0; c < count; c++) {
                    long start = System.nanoTime();
                    TipcSocketChannel.open(address).close();
                    times[c] = (System.nanoTime() - start) / 1e3;
                }
                return times;
            });
            Testbed.get(accepting);
            return micros;
        }
    }

    /** Links up in the output of {@code tipc link list} (the broadcast link is not one). */
    static int linksUp(String linkList) {
        return (int) linkList.lines().filter(l -> !l.startsWith("broadcast-link") && l.endsWith(": up")).count();
    }

    /** A /proc/meminfo field in KiB. */
    static long meminfoKiB(String meminfo, String field) {
        return meminfo.lines().filter(l -> l.startsWith(field + ":"))
                .map(l -> l.substring(field.length() + 1).trim().split("\\s+"))
                .filter(w -> w.length == 2 && w[1].equals("kB")).mapToLong(w -> Long.parseLong(w[0])).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + field + " in kB in /proc/meminfo"));
    }

    private static long slabKiB() throws IOException {
        // Not all of Slab: its reclaimable part is mostly the dentries and inodes of the bearer commands' processes.
        return meminfoKiB(Files.readString(Path.of("/proc/meminfo")), "SUnreclaim");
    }

    private static void report(Path out, List<Sample> samples, int[] sizes, int repetitions, int connects,
                               String memory) throws IOException {
        StringBuilder csv = new StringBuilder("n,repetition,metric,value\n");
        for (Sample s : samples) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%s,%.3f%n", s.n(), s.repetition(), s.metric().key, s.value()));
        }
        Files.createDirectories(out);
        for (Metric m : Metric.values()) {
            if (m == Metric.LINKS_UP_FROM_FIRST || m == Metric.CONNECT_P90 || m == Metric.WITHDRAWAL_REACH) {
                continue; // drawn beside their companions
            }
            Charts.save(out, "plot-" + m.key, chart(samples, sizes, m));
        }
        Results.write(out, "tipc-scale", csv, summary(samples, sizes, repetitions, connects) + "\n" + memory + "\n");
    }

    private static XYChart chart(List<Sample> samples, int[] sizes, Metric metric) {
        XYChart chart = Charts.lines(metric.meaning.length() > 60 ? metric.key : metric.meaning, "N (TIPC nodes)",
                metric.unit + " (median of repetitions; lines: fits)");
        double[] x = Arrays.stream(sizes).asDoubleStream().toArray();
        List<Metric> drawn = new ArrayList<>(List.of(metric));
        if (metric == Metric.LINKS_UP) {
            drawn.add(Metric.LINKS_UP_FROM_FIRST);
        } else if (metric == Metric.CONNECT_MEDIAN) {
            drawn.add(Metric.CONNECT_P90);
        } else if (metric == Metric.PUBLICATION_REACH) {
            drawn.add(Metric.WITHDRAWAL_REACH);
        }
        for (Metric m : drawn) {
            double[] y = medians(samples, sizes, m);
            chart.addSeries(m.key + " measured", x, y);
            if (sizes.length >= 2) {
                for (Model model : List.of(Model.LINEAR, Model.PAIRS)) {
                    Fit fit = LeastSquares.fit(model, x, y);
                    chart.addSeries(m.key + " " + model.formula(), x, Arrays.stream(x).map(fit::at).toArray());
                }
            }
        }
        return chart;
    }

    static double[] medians(List<Sample> samples, int[] sizes, Metric metric) {
        return Arrays.stream(sizes).mapToDouble(n -> Stats.median(samples.stream()
                .filter(s -> s.n() == n && s.metric() == metric).mapToDouble(Sample::value))).toArray();
    }

    static String summary(List<Sample> samples, int[] sizes, int repetitions, int connects) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, """
                N TIPC nodes as namespaces of one testbed guest (tipc-vm --no-bearers), for N = %s, %d repetitions \
                each; %d names per NodeManager (K); %d connects per repetition. Every N starts from no bearers. \
                Medians over the repetitions, with the 95%% bootstrap interval of the median:

                """, Arrays.toString(sizes), repetitions, NAMES_PER_NODE, connects));
        s.append("| metric | unit |");
        Arrays.stream(sizes).forEach(n -> s.append(" N=").append(n).append(" |"));
        s.append("\n|---|---|").append("---:|".repeat(sizes.length)).append('\n');
        for (Metric m : Metric.values()) {
            s.append("| ").append(m.key).append(" | ").append(m.unit).append(" |");
            for (int n : sizes) {
                double[] v = samples.stream().filter(x -> x.n() == n && x.metric() == m).mapToDouble(Sample::value)
                        .toArray();
                s.append(String.format(Locale.ROOT, " %.4g [%s] |", Stats.median(Arrays.stream(v)),
                        Stats.medianInterval95(v).format("%.3g")));
            }
            s.append('\n');
        }
        s.append("\nWhat each metric is:\n\n");
        for (Metric m : Metric.values()) {
            s.append("- `").append(m.key).append("`: ").append(m.meaning).append(".\n");
        }
        if (sizes.length >= 2) {
            s.append("\nLeast-squares fits to the medians, and what they say at N = 1,000 and 5,000 (both models "
                    + "for every metric; the RMS error is the fit's on the measured N):\n\n");
            s.append("| metric | model | fit | N=1000 | N=5000 |\n|---|---|---|---:|---:|\n");
            double[] x = Arrays.stream(sizes).asDoubleStream().toArray();
            for (Metric m : Metric.values()) {
                double[] y = medians(samples, sizes, m);
                for (Model model : List.of(Model.LINEAR, Model.PAIRS)) {
                    Fit fit = LeastSquares.fit(model, x, y);
                    s.append(String.format(Locale.ROOT, "| %s | %s | %s |", m.key, model.formula(), fit.describe()));
                    for (int n : EXTRAPOLATE_TO) {
                        s.append(String.format(Locale.ROOT, " %.4g %s |", fit.at(n), m.unit));
                    }
                    s.append('\n');
                }
            }
        }
        s.append("""

                How to read the fits. The one guest does every node's work on the same 2 emulated CPUs, so work that a \
                real cluster spreads over N machines (each node's N-1 links, each node's copy of the name table) adds \
                up here: the pair model a + b·N(N-1)/2 is this testbed's shape for cluster-wide work, the linear model \
                a real cluster's per-node shape. Events per restart are per subscriber and should not grow with N: a \
                rolling restart of all N NodeManagers costs every reducer node N times them, the cluster N² times. \
                Slab per node is the guest's total over N; with N-1 links and N·K names per node it grows linearly. \
                Beyond the measured N the fits know nothing of: TIPC's link supervision (full mesh up to 32 nodes, \
                then the overlapping ring monitor, which probes about √N neighbours per node), its broadcast link \
                (reported to reset at 70-80 nodes on some networks), real NICs and switches (here data and link \
                messages cross a bridge of veths in one kernel), real CPUs, and memory: per node, the linear slab \
                model times N is what one node holds for a cluster of N.
                """);
        return s.toString();
    }
}
