package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.ShuffleServiceName;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * Reads the name table for the shuffle: whether this node's NodeManager publishes the
 * names reducers derive from its addresses, and it alone, and which other nodes publish theirs.
 */
final class PublishedNames {
    static final String OWN = "shuffle-names";
    static final String PEERS = "peer-names";

    private PublishedNames() {
    }

    /**
     * @param ours         the names a NodeManager here publishes (as the handler computes them)
     * @param ownNode      this node's TIPC address
     * @param bindings     the name table's bindings of the shuffle service type
     * @param nodeManager  whether a NodeManager runs on this host
     * @param identity     a node's identity from its address, for messages
     */
    static Check own(List<ShuffleServiceName> ours, int serviceType, int ownNode, List<NameTable.Binding> bindings,
                     boolean nodeManager, IntFunction<String> identity) {
        List<String> published = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        List<String> heldElsewhere = new ArrayList<>();
        List<String> shared = new ArrayList<>();
        for (ShuffleServiceName name : ours) {
            String shown = name + " as " + name.tipcAddress(serviceType);
            List<NameTable.Binding> holders = new ArrayList<>();
            boolean here = false;
            for (NameTable.Binding b : bindings) {
                if (b.covers(name.instance())) {
                    holders.add(b);
                    here |= b.node() == ownNode;
                }
            }
            if (here) {
                published.add(shown);
                if (holders.size() > 1) {
                    shared.add(shown + " is bound by " + holders.size() + " sockets: " + sockets(holders, identity));
                }
            } else {
                missing.add(shown);
                if (!holders.isEmpty()) {
                    heldElsewhere.add(shown + " is held by " + sockets(holders, identity));
                }
            }
        }
        if (!shared.isEmpty()) {
            return new Check(OWN, Check.Status.FAIL, String.join("; ", shared),
                    "one socket on this node is the NodeManager's listener; any other is another process's (any user"
                            + " may bind a TIPC name), to which the kernel hands a share of reducers' connections:"
                            + " they refuse it and fetch over HTTP/TCP. Find it with `tipc socket list` on its node"
                            + " (the port is its socket reference) and stop it; the NodeManager logs each such socket"
                            + " and counts it in ShuffleNameOtherHolders.");
        }
        if (missing.isEmpty()) {
            return Check.ok(OWN, "all " + published.size() + " published by this node: " + String.join(", ", published));
        }
        String collisions = heldElsewhere.isEmpty() ? "" : "; " + String.join("; ", heldElsewhere);
        String collisionFix = heldElsewhere.isEmpty() ? "" : " A name held by another node is a hash collision"
                + " or a stale second NodeManager: reducers reach that address over HTTP/TCP.";
        if (!published.isEmpty()) {
            return new Check(OWN, Check.Status.WARN, published.size() + " of " + ours.size()
                    + " published; not published: " + String.join(", ", missing) + collisions,
                    "reducers reach the missing addresses over HTTP/TCP; see the NodeManager log for why."
                            + collisionFix);
        }
        if (!nodeManager) {
            return new Check(OWN, Check.Status.WARN, "not published yet, and no NodeManager runs here"
                    + " (expected before it starts): " + String.join(", ", missing) + collisions,
                    "start the NodeManager, then run doctor again: its TipcShuffleHandler publishes these names."
                            + collisionFix);
        }
        return new Check(OWN, Check.Status.FAIL, "a NodeManager runs here but publishes none of "
                + String.join(", ", missing) + collisions,
                "check yarn.nodemanager.aux-services.mapreduce_shuffle.class = "
                        + "io.hadooptipc.shuffle.server.TipcShuffleHandler, mapreduce.shuffle.tipc.enabled,"
                        + " and the NodeManager log for 'TIPC shuffle not started'." + collisionFix);
    }

    private static String sockets(List<NameTable.Binding> holders, IntFunction<String> identity) {
        List<String> sockets = new ArrayList<>();
        for (NameTable.Binding b : holders) {
            sockets.add("node " + identity.apply(b.node()) + " port " + Integer.toUnsignedString(b.port()));
        }
        return String.join(", ", sockets);
    }

    static Check peers(int ownNode, List<NameTable.Binding> bindings, IntFunction<String> identity) {
        Map<String, Integer> byNode = new TreeMap<>();
        for (NameTable.Binding b : bindings) {
            if (b.node() != ownNode) {
                byNode.merge(identity.apply(b.node()), 1, Integer::sum);
            }
        }
        if (byNode.isEmpty()) {
            return new Check(PEERS, Check.Status.WARN, "no other node publishes shuffle names of this type",
                    "start the other nodes' NodeManagers with TipcShuffleHandler (and the same service type);"
                            + " until then reducers fetch from them over HTTP/TCP");
        }
        List<String> nodes = new ArrayList<>();
        byNode.forEach((node, count) -> nodes.add(node + " (" + count + ")"));
        return Check.ok(PEERS, byNode.size() + " other node(s) publish: " + String.join(", ", nodes));
    }
}
