package io.hadooptipc.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRConfig;

import java.util.Locale;

/**
 * Configuration keys of the TIPC shuffle. Defaults are documented in
 * {@code tipc-shuffle-default.xml}, shipped in this jar, and every read passes the
 * default in code: that file is not added as a default resource, because one added
 * after yarn-site.xml and mapred-site.xml would override the operator's values. Stock shuffle keys
 * ({@code mapreduce.shuffle.*}, {@code mapreduce.reduce.shuffle.*}) keep their stock
 * meaning for both transports.
 */
public final class TipcShuffleConfig {
    public static final String DEFAULT_RESOURCE = "tipc-shuffle-default.xml";

    /** NodeManager: serve map output over TIPC as well as over HTTP/TCP. */
    public static final String SERVER_ENABLED = "mapreduce.shuffle.tipc.enabled";
    public static final boolean DEFAULT_SERVER_ENABLED = true;

    /** Both sides: the TIPC service type of shuffle names (the instance comes from address and port). */
    public static final String SERVICE_TYPE = "mapreduce.shuffle.tipc.service.type";
    public static final int DEFAULT_SERVICE_TYPE = 18700;

    /** NodeManager: how long a TIPC response may wait for the reducer to take more bytes before the connection is closed. */
    public static final String WRITE_TIMEOUT_MS = "mapreduce.shuffle.tipc.write-timeout.ms";
    public static final int DEFAULT_WRITE_TIMEOUT_MS = 60_000;

    /**
     * NodeManager: map outputs of at most this many bytes are sent over TIPC with their headers in
     * gathered writes, several per write, up to this many bytes held before one; 0 sends each as stock
     * does. Not in TLS over TIPC.
     */
    public static final String GATHER_MAX_BYTES = "mapreduce.shuffle.tipc.gather.max-bytes";
    public static final int DEFAULT_GATHER_MAX_BYTES = 65_536;

    /**
     * NodeManager: the most TIPC connections open at once; one accepted beyond it is closed at once.
     * Stock's {@code mapreduce.shuffle.max.connections}, answered with 429 once a request is read,
     * takes effect only below it.
     */
    public static final String MAX_OPEN_CONNECTIONS = "mapreduce.shuffle.tipc.max-open-connections";
    public static final int DEFAULT_MAX_OPEN_CONNECTIONS = 4096;

    /**
     * NodeManager: the most TIPC connections open at once from any one peer TIPC node, so that one
     * node's flood leaves the rest of {@link #MAX_OPEN_CONNECTIONS} to the others; one accepted beyond it
     * is closed at once. A quarter of the default cap: far above what the reduce tasks of a busy node hold
     * to one map host (one fetch and one kept-alive stream each, a few with connect-ahead).
     */
    public static final String MAX_OPEN_CONNECTIONS_PER_NODE = "mapreduce.shuffle.tipc.max-open-connections-per-node";
    public static final int DEFAULT_MAX_OPEN_CONNECTIONS_PER_NODE = 1024;

    /**
     * Both sides: the operator declares that the kernel encrypts every TIPC link between the nodes
     * ({@code tipc node set key} on every node, TIPC's AEAD). Matters only where
     * {@code mapreduce.shuffle.ssl.enabled} requires an encrypted shuffle: then TIPC carries plain HTTP
     * instead of TLS ({@link Encryption}), on a kernel that can encrypt TIPC; on one that cannot,
     * nothing is served over TIPC. The kernel does not let userspace read whether a key is set, so
     * nothing verifies that part of the declaration.
     */
    public static final String LINKS_ENCRYPTED = "mapreduce.shuffle.tipc.links.encrypted";
    public static final boolean DEFAULT_LINKS_ENCRYPTED = false;

    /** Job: {@code auto}, {@code tipc} or {@code tcp}; see {@link Transport}. */
    public static final String TRANSPORT = "mapreduce.shuffle.tipc.transport";
    public static final Transport DEFAULT_TRANSPORT = Transport.AUTO;

    /**
     * Job, {@code auto} transport: follow TIPC's topology service, so that a host whose name is
     * withdrawn goes over HTTP/TCP without a connect attempt and a host that fell back returns to
     * TIPC once its name is published again; false: a host that fell back stays on HTTP/TCP.
     */
    public static final String TOPOLOGY_ENABLED = "mapreduce.shuffle.tipc.topology.enabled";
    public static final boolean DEFAULT_TOPOLOGY_ENABLED = true;

    /**
     * Job: how long each TIPC socket a fetch tries has, from its connect (or, kept alive, from the request) to a
     * whole response head that proves the job token; then it is closed and the fetch tries the name's other
     * publications. Our server sends the head once it has read the map outputs' index records, in milliseconds;
     * an impostor that sends a byte at a time never gets longer than this.
     */
    public static final String PROOF_SOCKET_TIMEOUT_MS = "mapreduce.shuffle.tipc.proof.socket-timeout.ms";
    public static final long DEFAULT_PROOF_SOCKET_TIMEOUT_MS = 30_000;

    /**
     * Job: how long a fetch's whole TIPC attempt has, the socket its name leads to and the walk over the name's
     * other publications, to a response head that proves the job token; then it goes over HTTP/TCP ({@code auto})
     * or fails ({@code tipc}). A third of stock's 180 s read timeout: two sockets' worth.
     */
    public static final String PROOF_TIMEOUT_MS = "mapreduce.shuffle.tipc.proof.timeout.ms";
    public static final long DEFAULT_PROOF_TIMEOUT_MS = 60_000;

    /**
     * Job, {@code auto} transport: a host whose fetch went over HTTP/TCP before any socket at its name proved the
     * job token (a failed connect or TLS handshake, an answer without the proof, none in time) goes back to TIPC
     * after this long, or as soon as a socket publishes its name, whichever comes first: any process may cause
     * such a fallback by binding the name.
     */
    public static final String UNPROVEN_HOLD_MS = "mapreduce.shuffle.tipc.unproven.hold.ms";
    public static final long DEFAULT_UNPROVEN_HOLD_MS = 30_000;

    /**
     * Job, with the topology service followed: act on TIPC's report that every link to a map host's node is down
     * (the host's fetches held, a TCP connect to its shuffle port after the hold-down, and when none answers its
     * outstanding map outputs reported to the ApplicationMaster); false: such a host waits for the stock timeouts.
     */
    public static final String NODE_LOSS_ENABLED = "mapreduce.shuffle.tipc.node-loss.enabled";
    // On: the node-loss benchmark's three rounds re-ran no map on a link flap, a NodeManager restart or a short
    // blackout, and a lost map host's outputs in seconds rather than stock's minutes.
    public static final boolean DEFAULT_NODE_LOSS_ENABLED = true;

    /**
     * Job: how long after TIPC reports a map host's node lost the reduce task waits for the node's links to come
     * back (a flap) before it tries the host's shuffle port over TCP, in milliseconds; also the window in which the
     * losses of many peers at once read as this node's own fault. TIPC has already waited its link tolerance
     * (1.5 s by default) before the report.
     */
    public static final String NODE_LOSS_HOLD_DOWN_MS = "mapreduce.shuffle.tipc.node-loss.hold-down.ms";
    public static final long DEFAULT_NODE_LOSS_HOLD_DOWN_MS = 3_000;

    /**
     * Job: how long the TCP connect to a map host's shuffle port, after its node's loss and the hold-down, may take,
     * in milliseconds; a connection or a refusal means the host is up (fetched from over HTTP/TCP), anything else
     * that it is lost. Twice Linux's initial SYN retransmission timeout (1 s), so one lost SYN does not make a live
     * host look dead.
     */
    public static final String NODE_LOSS_PROBE_TIMEOUT_MS = "mapreduce.shuffle.tipc.node-loss.probe-timeout.ms";
    public static final int DEFAULT_NODE_LOSS_PROBE_TIMEOUT_MS = 2_000;

    /**
     * Job: keep TIPC streams open after a response read to its end and send the host's next
     * request on one. Our TIPC server keeps every connection alive, as stock's does with
     * {@code mapreduce.shuffle.connection-keep-alive.enable}.
     */
    public static final String REUSE_ENABLED = "mapreduce.shuffle.tipc.reuse.enabled";
    public static final boolean DEFAULT_REUSE_ENABLED = true;

    /** Job: kept-alive TIPC streams held idle per map host (0 keeps none). */
    public static final String REUSE_MAX_IDLE_PER_HOST = "mapreduce.shuffle.tipc.reuse.max-idle-per-host";
    public static final int DEFAULT_REUSE_MAX_IDLE_PER_HOST = 1;

    /**
     * Job: how long a kept-alive TIPC stream may stay idle before the reducer closes it; the
     * server's own {@code Keep-Alive} timeout shortens it. Below the stock server's 5 s default,
     * so that the reducer, not the server, usually closes an idle stream.
     */
    public static final String REUSE_IDLE_TIMEOUT_MS = "mapreduce.shuffle.tipc.reuse.idle-timeout.ms";
    public static final int DEFAULT_REUSE_IDLE_TIMEOUT_MS = 4000;

    /**
     * Job: connect a TIPC stream to each map host when its first map output becomes known, in a thread of
     * the reduce task's own, and keep it for the host's first fetch (with {@link #REUSE_ENABLED}), so that a
     * fetcher that comes to the host after others finds it connected. Off by default: in shuffle-incast
     * (results/shuffle-incast/connect-ahead) it saved no copy-phase time, and above the TCP size the streams
     * connected ahead go unused.
     */
    public static final String CONNECT_AHEAD_ENABLED = "mapreduce.shuffle.tipc.connect-ahead.enabled";
    public static final boolean DEFAULT_CONNECT_AHEAD_ENABLED = false;

    /**
     * Job, {@code auto} transport: once a map output of more than this many bytes arrives over TIPC, the
     * reduce task fetches the rest over HTTP/TCP, whose large segments carry bulk data in fewer frames than
     * TIPC's link packets; 0 keeps every size on TIPC.
     */
    public static final String TCP_ABOVE_BYTES = "mapreduce.shuffle.tipc.tcp.above-bytes";
    public static final long DEFAULT_TCP_ABOVE_BYTES = 32_768;

    /**
     * Job, {@code auto} transport with {@link #TCP_ABOVE_BYTES} above 0: where a reduce task's fetches go before any
     * map output has shown its size ({@link FirstFetches}).
     */
    public static final String FIRST_FETCHES = "mapreduce.shuffle.tipc.first-fetches";
    public static final FirstFetches DEFAULT_FIRST_FETCHES = FirstFetches.TIPC;

    /**
     * Job, {@link FirstFetches#PROBE}: how long the task's other fetches wait for the probe's first map output header
     * before they go on as with {@link FirstFetches#TIPC}, in milliseconds.
     */
    public static final String PROBE_WAIT_MS = "mapreduce.shuffle.tipc.first-fetches.probe-wait.ms";
    public static final long DEFAULT_PROBE_WAIT_MS = 2_000;

    /**
     * Job and node: where the Hadoop cluster runs one TIPC cluster (an island: its own TIPC network id) per
     * rack or pod, how many leading components of a host's network location (Hadoop's rack awareness,
     * {@code net.topology.*}) name its island; a reducer fetches from a host of another island over HTTP/TCP
     * without trying TIPC. 0: one TIPC cluster spans the Hadoop cluster.
     */
    public static final String ISLAND_LEVEL = "mapreduce.shuffle.tipc.island.level";
    public static final int DEFAULT_ISLAND_LEVEL = 0;

    /** Request header: the server identity the fetcher meant to reach. */
    public static final String TARGET_HEADER = "X-TIPC-Shuffle-Target";
    /**
     * Request header: the reducer takes map outputs of more than this many bytes over HTTP/TCP
     * ({@link #TCP_ABOVE_BYTES}), so the server ends its response over TIPC at the header of the first one.
     */
    public static final String TCP_ABOVE_HEADER = "X-TIPC-Shuffle-Tcp-Above";
    /** Response header: the identity of the server that answered. */
    public static final String SERVER_HEADER = "X-TIPC-Shuffle-Server";

    private TipcShuffleConfig() {
    }

    /** Which transport fetchers use. */
    public enum Transport {
        /** TIPC to hosts that publish the service, HTTP/TCP otherwise and on any TIPC failure. */
        AUTO,
        /** TIPC only: a TIPC failure fails the fetch (stock retry rules apply) instead of falling back. */
        TIPC,
        /** The stock HTTP/TCP shuffle, untouched. */
        TCP;

        public static Transport of(Configuration conf) {
            return choice(conf, TRANSPORT, DEFAULT_TRANSPORT);
        }
    }

    /** Where a reduce task's first fetches go, before a map output's header has shown the size of its partitions. */
    public enum FirstFetches {
        /** Over TIPC; the first map output above {@link #TCP_ABOVE_BYTES} sends the task to HTTP/TCP. */
        TIPC,
        /** Over HTTP/TCP; the first map output of at most {@link #TCP_ABOVE_BYTES} sends the task to TIPC. */
        TCP,
        /**
         * One over TIPC while the others wait for its first map output's header ({@link #PROBE_WAIT_MS} at most):
         * at most {@link #TCP_ABOVE_BYTES} keeps the task on TIPC, more sends it to HTTP/TCP.
         */
        PROBE;

        public static FirstFetches of(Configuration conf) {
            return choice(conf, FIRST_FETCHES, DEFAULT_FIRST_FETCHES);
        }
    }

    /** How map output over TIPC meets {@code mapreduce.shuffle.ssl.enabled}: NodeManagers and jobs must agree. */
    public enum Encryption {
        /** No encrypted shuffle required: HTTP over TIPC, as stock serves HTTP. */
        NONE("HTTP over TIPC (" + MRConfig.SHUFFLE_SSL_ENABLED_KEY + " = false)"),
        /** Encrypted shuffle required: TLS over TIPC with stock's SSL settings, as HTTPS has them. */
        TLS("TLS over TIPC (" + MRConfig.SHUFFLE_SSL_ENABLED_KEY + " = true: stock's SSL settings, as for HTTPS)"),
        /** Encrypted shuffle required, and {@link #LINKS_ENCRYPTED} declares the TIPC links encrypted by the kernel. */
        KERNEL("HTTP over TIPC links declared encrypted by the kernel (" + MRConfig.SHUFFLE_SSL_ENABLED_KEY
                + " = true, " + LINKS_ENCRYPTED + " = true)");

        /** What TIPC carries, for logs and the doctor. */
        public final String carried;

        Encryption(String carried) {
            this.carried = carried;
        }

        public static Encryption of(Configuration conf) {
            if (!conf.getBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, MRConfig.SHUFFLE_SSL_ENABLED_DEFAULT)) {
                return NONE;
            }
            return conf.getBoolean(LINKS_ENCRYPTED, DEFAULT_LINKS_ENCRYPTED) ? KERNEL : TLS;
        }
    }

    /** {@code key}'s value, one of {@code fallback}'s enum's constants in any case, or an error that lists them. */
    private static <E extends Enum<E>> E choice(Configuration conf, String key, E fallback) {
        String value = conf.getTrimmed(key, fallback.name());
        E[] choices = fallback.getDeclaringClass().getEnumConstants();
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < choices.length; i++) {
            if (choices[i].name().equalsIgnoreCase(value)) {
                return choices[i];
            }
            names.append(i == 0 ? "" : i == choices.length - 1 ? " or " : ", ")
                    .append(choices[i].name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException(key + " must be " + names + ", not '" + value + "'");
    }

    /** Why a NodeManager with this configuration must not serve map output over TIPC, or null if it may. */
    public static String whyNotServed(Configuration conf) {
        return conf.getBoolean(SERVER_ENABLED, DEFAULT_SERVER_ENABLED) ? null : "disabled by " + SERVER_ENABLED;
    }

    public static int serviceType(Configuration conf) {
        int type = conf.getInt(SERVICE_TYPE, DEFAULT_SERVICE_TYPE);
        if (type >= 0 && type < 64) { // 0..63 are reserved by TIPC
            throw new IllegalArgumentException(SERVICE_TYPE + " must not be in TIPC's reserved range 0-63: " + type);
        }
        return type;
    }
}
