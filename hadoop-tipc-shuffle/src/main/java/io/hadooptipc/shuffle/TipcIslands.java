package io.hadooptipc.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.NodeBase;
import org.apache.hadoop.net.ScriptBasedMapping;
import org.apache.hadoop.util.ReflectionUtils;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The TIPC cluster ("island") a host belongs to, where a Hadoop cluster runs one TIPC cluster per
 * rack or pod: the first {@link TipcShuffleConfig#ISLAND_LEVEL} components of the host's network
 * location, as Hadoop's rack awareness ({@code net.topology.node.switch.mapping.impl}, its script or
 * table) places it. A host whose location cannot be resolved counts as in this node's island: TIPC is
 * tried, and a name it cannot find sends the host to HTTP/TCP as it would in one island.
 */
public final class TipcIslands {
    /** The environment variable YARN gives a container: the NodeManager's host name. */
    static final String NM_HOST = "NM_HOST";

    private final int level;
    private final DNSToSwitchMapping mapping;
    private final String own;
    /** Per host, beside the mapping's own cache: its resolve takes and returns a list, one per call of a fetch. */
    private final Map<String, Boolean> sameIsland = new ConcurrentHashMap<>();

    private TipcIslands(int level, DNSToSwitchMapping mapping, String ownHost) {
        this.level = level;
        this.mapping = mapping;
        String location = level == 0 ? null : locationOf(ownHost);
        this.own = level == 0 ? "" : island(location == null ? NetworkTopology.DEFAULT_RACK : location, level);
    }

    /** The islands as {@code conf} sets them, seen from {@code ownHost}. */
    public static TipcIslands of(Configuration conf, String ownHost) {
        int level = conf.getInt(TipcShuffleConfig.ISLAND_LEVEL, TipcShuffleConfig.DEFAULT_ISLAND_LEVEL);
        if (level < 0) {
            throw new IllegalArgumentException(TipcShuffleConfig.ISLAND_LEVEL + " must be 0 or more, not " + level);
        }
        if (level == 0) {
            return new TipcIslands(0, null, ownHost);
        }
        Class<? extends DNSToSwitchMapping> type = conf.getClass(
                CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, ScriptBasedMapping.class,
                DNSToSwitchMapping.class);
        return new TipcIslands(level, ReflectionUtils.newInstance(type, conf), ownHost);
    }

    /**
     * The islands as {@code conf} sets them, seen from this node under the host name its NodeManager has: YARN's
     * {@code NM_HOST} in a container, else the local host's.
     */
    public static TipcIslands forThisHost(Configuration conf) throws UnknownHostException {
        if (conf.getInt(TipcShuffleConfig.ISLAND_LEVEL, TipcShuffleConfig.DEFAULT_ISLAND_LEVEL) == 0) {
            return of(conf, "");
        }
        return of(conf, thisHost());
    }

    /** This node's host name as its NodeManager has it: YARN's {@code NM_HOST} in a container, else the local host's. */
    public static String thisHost() throws UnknownHostException {
        String nmHost = System.getenv(NM_HOST);
        return nmHost != null && !nmHost.isEmpty() ? nmHost : InetAddress.getLocalHost().getHostName();
    }

    /** The island of network location {@code location} ({@code /pod/rack}): its first {@code level} components. */
    public static String island(String location, int level) {
        int end = 0;
        for (int i = 0; i < level; i++) {
            int next = location.indexOf(NodeBase.PATH_SEPARATOR, end + 1);
            if (next < 0) {
                return location;
            }
            end = next;
        }
        return location.substring(0, end);
    }

    /** Whether islands are configured at all (level above 0). */
    public boolean enabled() {
        return level > 0;
    }

    public int level() {
        return level;
    }

    /** This node's island; "" when islands are off. */
    public String own() {
        return own;
    }

    /** The island of {@code host}, or this node's when its location cannot be resolved. */
    public String islandOf(String host) {
        String location = locationOf(host);
        return location == null ? own : island(location, level);
    }

    /** The location Hadoop's topology gives {@code host}, or null when it cannot resolve it. */
    public String locationOf(String host) {
        List<String> locations = mapping.resolve(Collections.singletonList(host));
        return locations == null || locations.size() != 1 ? null : locations.get(0);
    }

    /** Whether {@code host} is in this node's island (always, when islands are off). */
    public boolean sameIsland(String host) {
        if (level == 0) {
            return true;
        }
        Boolean same = sameIsland.get(host);
        if (same == null) {
            same = own.equals(islandOf(host));
            sameIsland.put(host, same);
        }
        return same;
    }
}
