package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.TipcIslands;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.net.NetworkTopology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Which TIPC cluster (island) this node is in: its TIPC network id, the island Hadoop's topology gives its host
 * under {@link TipcShuffleConfig#ISLAND_LEVEL}, and the nodes it has links to. TIPC links only nodes of one
 * network id, so a linked node that the topology puts in another island means the two disagree: reducers would
 * send that node's map output over HTTP/TCP although TIPC reaches it, or the islands' network ids are the same.
 */
final class IslandCheck {
    static final String NAME = "island";
    static final List<String> NETID_COMMAND = Arrays.asList("tipc", "node", "get", "netid");

    private IslandCheck() {
    }

    /**
     * @param host  this node's host name as its NodeManager has it
     * @param peers the node identities of the nodes this one has links to
     * @param tipc  runs a {@code tipc} command ({@link CommandRun#of} on a node)
     */
    static Check of(TipcIslands islands, String host, List<String> peers, Function<List<String>, CommandRun> tipc) {
        CommandRun netid = tipc.apply(NETID_COMMAND);
        String network = netid.succeeded() ? "TIPC network id " + netid.output().trim()
                : "TIPC network id unknown (" + String.join(" ", NETID_COMMAND) + ": " + netid.output().trim() + ")";
        String linked = peers.isEmpty() ? "no links" : "links to " + String.join(", ", peers);
        if (!islands.enabled()) {
            return Check.ok(NAME, "one TIPC cluster spans the Hadoop cluster (" + TipcShuffleConfig.ISLAND_LEVEL
                    + " = 0); " + network + "; " + linked);
        }
        String location = islands.locationOf(host);
        String where = "island " + islands.own() + " (" + TipcShuffleConfig.ISLAND_LEVEL + " = " + islands.level()
                + " of " + host + "'s network location " + location + "); " + network + "; " + linked;
        if (location == null || NetworkTopology.DEFAULT_RACK.equals(location)) {
            return new Check(NAME, Check.Status.WARN, where + "; Hadoop's topology does not place this host, so every"
                    + " host counts as in one island",
                    "configure rack awareness (net.topology.node.switch.mapping.impl with its script or table) on every"
                            + " node, with each island's hosts under one " + islands.level() + "-component prefix");
        }
        List<String> elsewhere = new ArrayList<>();
        for (String peer : peers) {
            String peerLocation = islands.locationOf(peer);
            if (peerLocation != null && !NetworkTopology.DEFAULT_RACK.equals(peerLocation)) {
                String island = TipcIslands.island(peerLocation, islands.level());
                if (!island.equals(islands.own())) {
                    elsewhere.add(peer + " (" + island + ")");
                }
            }
        }
        if (!elsewhere.isEmpty()) {
            return new Check(NAME, Check.Status.FAIL, where + "; TIPC links this node to nodes the topology puts in"
                    + " other islands: " + String.join(", ", elsewhere),
                    "give each island its own TIPC network id (`tipc node set netid`, before the bearers are enabled)"
                            + ", or place these hosts in this island in the topology");
        }
        return Check.ok(NAME, where);
    }
}
