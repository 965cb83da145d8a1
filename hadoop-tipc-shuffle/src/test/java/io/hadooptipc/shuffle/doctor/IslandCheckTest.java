package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.TipcIslands;
import io.hadooptipc.shuffle.TipcIslandsTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The island check against Hadoop's topology (a table) and what {@code tipc node get netid} prints. */
class IslandCheckTest {
    private static final Function<List<String>, CommandRun> NETID_4711 =
            command -> new CommandRun(command, CommandRun.Outcome.EXITED, 0, "4711\n");

    @TempDir
    Path dir;

    @Test
    void oneClusterNamesItsNetworkIdAndLinks() throws IOException {
        TipcIslands islands = TipcIslands.of(TipcIslandsTest.topology(dir, 0), "m1");
        Check check = IslandCheck.of(islands, "m1", Arrays.asList("m2", "m3"), NETID_4711);
        assertEquals(Check.Status.OK, check.status());
        assertEquals("one TIPC cluster spans the Hadoop cluster (mapreduce.shuffle.tipc.island.level = 0);"
                + " TIPC network id 4711; links to m2, m3", check.finding());
    }

    @Test
    void anIslandIsNamedWithItsPeers() throws IOException {
        TipcIslands islands = TipcIslands.of(TipcIslandsTest.topology(dir, 1,
                "m1 /pod1/rack1", "m2 /pod1/rack2", "m3 /pod2/rack1"), "m1");
        Check check = IslandCheck.of(islands, "m1", Collections.singletonList("m2"), NETID_4711);
        assertEquals(Check.Status.OK, check.status());
        assertEquals("island /pod1 (mapreduce.shuffle.tipc.island.level = 1 of m1's network location /pod1/rack1);"
                + " TIPC network id 4711; links to m2", check.finding());
    }

    @Test
    void aLinkIntoAnotherIslandFails() throws IOException {
        TipcIslands islands = TipcIslands.of(TipcIslandsTest.topology(dir, 1,
                "m1 /pod1/rack1", "m2 /pod1/rack2", "m3 /pod2/rack1"), "m1");
        Check check = IslandCheck.of(islands, "m1", Arrays.asList("m2", "m3", "unplaced"), NETID_4711);
        assertEquals(Check.Status.FAIL, check.status());
        assertTrue(check.finding().endsWith("TIPC links this node to nodes the topology puts in other islands: m3 (/pod2)"),
                check.finding());
        assertTrue(check.fix().startsWith("give each island its own TIPC network id"), check.fix());
    }

    @Test
    void aHostTheTopologyDoesNotPlaceIsAWarning() throws IOException {
        TipcIslands islands = TipcIslands.of(TipcIslandsTest.topology(dir, 1, "m2 /pod1/rack2"), "m1");
        Check check = IslandCheck.of(islands, "m1", Collections.singletonList("m2"),
                command -> new CommandRun(command, CommandRun.Outcome.NOT_STARTED, -1, "No such file or directory"));
        assertEquals(Check.Status.WARN, check.status());
        assertEquals("island /default-rack (mapreduce.shuffle.tipc.island.level = 1 of m1's network location"
                + " /default-rack); TIPC network id unknown (tipc node get netid: No such file or directory); links to m2;"
                + " Hadoop's topology does not place this host, so every host counts as in one island", check.finding());
    }
}
