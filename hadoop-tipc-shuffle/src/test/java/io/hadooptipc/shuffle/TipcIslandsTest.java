package io.hadooptipc.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.TableMapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Islands from Hadoop's own topology mapping (a table, as an operator writes one). */
public class TipcIslandsTest {
    @TempDir
    Path dir;

    /** A configuration whose topology is a TableMapping of {@code table}'s lines, at island level {@code level}. */
    public static Configuration topology(Path dir, int level, String... table) throws IOException {
        Path file = dir.resolve("topology.table");
        Files.write(file, String.join("\n", table).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Configuration conf = new Configuration(false);
        conf.setClass(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, TableMapping.class,
                org.apache.hadoop.net.DNSToSwitchMapping.class);
        conf.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_TABLE_MAPPING_FILE_KEY, file.toString());
        conf.setInt(TipcShuffleConfig.ISLAND_LEVEL, level);
        return conf;
    }

    @Test
    void anIslandIsTheLocationsLeadingComponents() {
        assertEquals("/pod1", TipcIslands.island("/pod1/rack3", 1));
        assertEquals("/pod1/rack3", TipcIslands.island("/pod1/rack3", 2));
        assertEquals("/pod1/rack3", TipcIslands.island("/pod1/rack3", 5), "a shorter location is its own island");
        assertEquals("/rack1", TipcIslands.island("/rack1", 1));
    }

    @Test
    void hostsOfAnotherPodAreInAnotherIsland() throws IOException {
        TipcIslands islands = TipcIslands.of(topology(dir, 1,
                "m1 /pod1/rack1", "m2 /pod1/rack2", "m3 /pod2/rack1", "m4 /pod2/rack2"), "m1");
        assertTrue(islands.enabled());
        assertEquals("/pod1", islands.own());
        assertTrue(islands.sameIsland("m2"), "another rack of the same pod");
        assertFalse(islands.sameIsland("m3"));
        assertEquals("/pod2", islands.islandOf("m4"));
        assertEquals("/pod2/rack2", islands.locationOf("m4"));
    }

    @Test
    void atRackLevelAnotherRackIsAnotherIsland() throws IOException {
        TipcIslands islands = TipcIslands.of(topology(dir, 2, "m1 /pod1/rack1", "m2 /pod1/rack2"), "m1");
        assertFalse(islands.sameIsland("m2"));
    }

    @Test
    void aHostTheTopologyDoesNotPlaceIsInTheDefaultRacksIsland() throws IOException {
        TipcIslands islands = TipcIslands.of(topology(dir, 1, "m1 /pod1/rack1"), "m1");
        // TableMapping places an unknown host in /default-rack: not this node's island.
        assertEquals("/default-rack", islands.islandOf("elsewhere"));
        assertFalse(islands.sameIsland("elsewhere"));
    }

    @Test
    void levelZeroIsOneIsland() throws IOException {
        TipcIslands islands = TipcIslands.of(topology(dir, 0, "m1 /pod1/rack1", "m3 /pod2/rack1"), "m1");
        assertFalse(islands.enabled());
        assertTrue(islands.sameIsland("m3"));
    }

    @Test
    void aNegativeLevelIsAnError() throws IOException {
        Configuration conf = topology(dir, -1, "m1 /pod1/rack1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TipcIslands.of(conf, "m1"));
        assertEquals(TipcShuffleConfig.ISLAND_LEVEL + " must be 0 or more, not -1", e.getMessage());
    }
}
