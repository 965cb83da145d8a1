package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the link-tolerance check reads iproute2's {@code tipc link} output (as the tool prints it; DoctorKernelTest
 * runs the real tool on real links) and what it says of node loss.
 */
class LinkToleranceCheckTest {
    private static final String LIST = "broadcast-link: up\n1001002:eth0-1001001:eth0: up\n1001002:eth1-1001003:eth1: up\n";

    @Test
    void showsTheToleranceRangeOfThePeerLinksAndWhenATaskReportsADeadHost() {
        Configuration conf = new Configuration(false);
        conf.setBoolean(TipcShuffleConfig.NODE_LOSS_ENABLED, true);
        Check check = LinkToleranceCheck.of(conf, tipc(Map.of(
                "1001002:eth0-1001001:eth0", "1500\n", "1001002:eth1-1001003:eth1", "3000\n")));
        assertEquals(Check.Status.OK, check.status(), check.toString());
        assertTrue(check.finding().startsWith("1500-3000 ms on 2 link(s): TIPC reports a node lost about 1500-3000 ms"),
                check.finding());
        assertTrue(check.finding().contains("within about 8000 ms"), check.finding()); // 3000 + 3000 hold-down + 2000 probe
    }

    @Test
    void saysReduceTasksWaitForStockTimeoutsWithNodeLossOff() {
        Configuration conf = new Configuration(false);
        conf.setBoolean(TipcShuffleConfig.NODE_LOSS_ENABLED, false);
        Check check = LinkToleranceCheck.of(conf, tipc(Map.of(
                "1001002:eth0-1001001:eth0", "1500\n", "1001002:eth1-1001003:eth1", "1500\n")));
        assertTrue(check.finding().startsWith("1500 ms on 2 link(s)"), check.finding());
        assertTrue(check.finding().contains(TipcShuffleConfig.NODE_LOSS_ENABLED + " is off"), check.finding());
    }

    @Test
    void warnsWithTheToolsWordsWhenALinksToleranceCannotBeRead() {
        Check check = LinkToleranceCheck.of(new Configuration(false), tipc(Map.of("1001002:eth0-1001001:eth0", "1500\n")));
        assertEquals(Check.Status.WARN, check.status(), check.toString());
        assertTrue(check.finding().startsWith("`tipc link get tolerance link 1001002:eth1-1001003:eth1` failed (exit 1)"),
                check.finding());
    }

    /** The tool: lists {@link #LIST}, and prints the tolerance of the links in {@code tolerances}, failing for others. */
    private static Function<List<String>, CommandRun> tipc(Map<String, String> tolerances) {
        return command -> {
            if (command.equals(LinkToleranceCheck.LIST)) {
                return new CommandRun(command, CommandRun.Outcome.EXITED, 0, LIST);
            }
            String link = command.get(command.size() - 1);
            boolean known = command.equals(LinkToleranceCheck.getCommand(link)) && tolerances.containsKey(link);
            return new CommandRun(command, CommandRun.Outcome.EXITED, known ? 0 : 1,
                    known ? tolerances.get(link) : "error: no such link\n");
        };
    }
}
