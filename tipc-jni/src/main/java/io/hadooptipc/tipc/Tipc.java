package io.hadooptipc.tipc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Facts about TIPC on this node. */
public final class Tipc {
    /** The largest message SOCK_RDM and SOCK_SEQPACKET carry (TIPC_MAX_USER_MSG_SIZE). */
    public static final int MAX_MESSAGE_SIZE = 66000;

    /** The kernel publishes {NODE_STATE, node address} while a link to that node is up. */
    public static final int NODE_STATE_SERVICE = 0;

    private Tipc() {
    }

    /** Checks this host: the native library, AF_TIPC in the kernel, and links to other nodes. */
    public static TipcAvailability availability() {
        Throwable loadFailure = TipcNative.loadFailure();
        if (loadFailure != null) {
            return new TipcAvailability(TipcAvailability.Level.UNAVAILABLE,
                    "the native library did not load: " + loadFailure, 0, 0);
        }
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            return availability(topology);
        } catch (TipcException e) {
            return new TipcAvailability(TipcAvailability.Level.UNAVAILABLE, e.getMessage(), e.errno(), 0);
        } catch (IOException e) {
            return new TipcAvailability(TipcAvailability.Level.UNAVAILABLE, e.toString(), 0, 0);
        }
    }

    /**
     * Checks the links to other nodes over an open topology connection, which the caller may go
     * on using: that it opened says AF_TIPC works.
     */
    public static TipcAvailability availability(TipcTopologyChannel topology) throws IOException {
        int peers = reachableNodes(topology).size();
        if (peers == 0) {
            return new TipcAvailability(TipcAvailability.Level.NODE_LOCAL,
                    "AF_TIPC works, but no TIPC link to another node is up: enable a bearer"
                            + " (`tipc bearer enable media eth device <dev>`) on this and the other nodes", 0, 0);
        }
        return new TipcAvailability(TipcAvailability.Level.CLUSTER,
                "links up to " + peers + " other node(s)", 0, peers);
    }

    /** This node's 32-bit TIPC address (0 until the node has an identity). */
    public static int ownNodeAddress() throws IOException {
        try (TipcDatagramChannel probe = TipcDatagramChannel.open()) {
            return probe.getLocalAddress().node();
        }
    }

    /**
     * The {ref, node} identity the kernel gives the TIPC socket {@code descriptor}, which another library
     * (Netty, serving accepted connections) owns: getsockname(2) on it.
     */
    public static TipcSocketAddress localAddress(int descriptor) throws IOException {
        byte[] sa = new byte[Sockaddr.SIZE];
        TipcChannel.check("getsockname", null, TipcNative.getsockname(descriptor, sa));
        try {
            return (TipcSocketAddress) Sockaddr.decode(sa);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException("descriptor " + descriptor + " is not a connected TIPC socket: " + e.getMessage(), e);
        }
    }

    /**
     * The {ref, node} identity of the peer of the connected TIPC socket {@code descriptor}, which another
     * library (Netty, serving accepted connections) owns: getpeername(2) on it. The kernel assigns it;
     * no process can choose the node it connects from.
     */
    public static TipcSocketAddress peerAddress(int descriptor) throws IOException {
        byte[] sa = new byte[Sockaddr.SIZE];
        TipcChannel.check("getpeername", null, TipcNative.getpeername(descriptor, sa));
        try {
            return (TipcSocketAddress) Sockaddr.decode(sa);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException("descriptor " + descriptor + " is not a connected TIPC socket: " + e.getMessage(), e);
        }
    }

    /**
     * Publishes {@code name} on the TIPC socket {@code descriptor}, which another library owns (Netty,
     * serving a listener): bind(2) on it. A listening socket takes new names as it serves.
     */
    public static void publish(int descriptor, TipcAddress name, TipcScope scope) throws IOException {
        TipcChannel.check("bind", name, TipcNative.bind(descriptor, Sockaddr.encodeBind(name, scope)));
    }

    /**
     * The identity of a node (e.g. the name given by {@code tipc node set identity}),
     * from its 32-bit address; the node must be this one or linked to it.
     */
    public static String nodeIdentity(int nodeAddress) throws IOException {
        try (TipcDatagramChannel probe = TipcDatagramChannel.open()) {
            byte[] id = new byte[16];
            int r;
            int fd = probe.begin();
            try {
                r = TipcNative.nodeIdentity(fd, nodeAddress, id);
            } finally {
                probe.end();
            }
            TipcChannel.check("ioctl(SIOCGETNODEID) for node " + Integer.toHexString(nodeAddress), null, probe.ended(r));
            int end = 0;
            while (end < id.length && id[end] != 0) {
                end++;
            }
            return new String(id, 0, end, StandardCharsets.US_ASCII);
        }
    }

    /**
     * Waits until some socket in the cluster has bound {@code service}, as this node's topology service
     * sees it, and returns that socket: a connect to a name nobody has bound yet fails at once with
     * EHOSTUNREACH, so a client started beside its server waits on this rather than on sleeps.
     */
    public static TipcSocketAddress awaitPublished(TipcServiceAddress service, Duration timeout) throws IOException {
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            topology.subscribe(TipcServiceRange.of(service), TipcTopologyChannel.Mode.FIRST_AND_LAST, timeout);
            TipcTopologyEvent e = topology.receive();
            if (e.kind() != TipcTopologyEvent.Kind.PUBLISHED) {
                throw new IOException(service + " was not published within " + timeout);
            }
            return e.socket();
        }
    }

    /**
     * The bindings of {@code range} in the cluster's name table right now, as this node's topology
     * service reports them: each socket's binding with its instances as bound (a range may cover all).
     */
    public static List<TipcTopologyEvent> bindings(TipcServiceRange range) throws IOException {
        List<TipcTopologyEvent> bindings = new ArrayList<>();
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            // A short-lived subscription: the kernel reports the existing bindings, then TIMEOUT.
            topology.subscribe(range, TipcTopologyChannel.Mode.EVERY_BINDING, Duration.ofMillis(1));
            for (TipcTopologyEvent e = nextEvent(topology); e.kind() != TipcTopologyEvent.Kind.TIMEOUT;
                 e = nextEvent(topology)) {
                if (e.kind() == TipcTopologyEvent.Kind.PUBLISHED) {
                    bindings.add(e);
                }
            }
        }
        return bindings;
    }

    /** The addresses of the other nodes this node has a TIPC link up to, right now. */
    public static List<Integer> reachableNodes() throws IOException {
        try (TipcTopologyChannel topology = TipcTopologyChannel.open()) {
            return reachableNodes(topology);
        }
    }

    /**
     * {@link #reachableNodes()} over an open topology connection, before anyone reads its events
     * on another thread: this reads them until its own subscription's TIMEOUT, skipping others'.
     */
    static List<Integer> reachableNodes(TipcTopologyChannel topology) throws IOException {
        List<Integer> nodes = new ArrayList<>();
        int self = topology.getLocalAddress().node();
        // A short-lived subscription: the kernel reports the existing links, then TIMEOUT.
        TipcTopologyChannel.Subscription links = topology.subscribe(TipcServiceRange.all(NODE_STATE_SERVICE),
                TipcTopologyChannel.Mode.EVERY_BINDING, Duration.ofMillis(1));
        for (TipcTopologyEvent e = nextEvent(topology); e.subscription() != links
                || e.kind() != TipcTopologyEvent.Kind.TIMEOUT; e = nextEvent(topology)) {
            if (e.subscription() == links && e.kind() == TipcTopologyEvent.Kind.PUBLISHED && e.lower() != self
                    && !nodes.contains(e.lower())) {
                nodes.add(e.lower());
            }
        }
        return nodes;
    }

    private static TipcTopologyEvent nextEvent(TipcTopologyChannel topology) throws IOException {
        TipcTopologyEvent e = topology.receive(Duration.ofSeconds(5));
        if (e == null) {
            throw new TipcException("receive from topology service", null, 0, "no answer within 5 s");
        }
        return e;
    }
}
