package io.hadooptipc.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The scripts source network.env and Java reads it as properties: both must see the same addresses. */
class TestbedNetworkTest {
    @Test
    void javaReadsTheAddressesTheScriptsSource() throws Exception {
        String env = Path.of("network.env").toAbsolutePath().toString();
        String echo = ". \"$1\" && echo \"$NODE_SUBNET.7 $MACHINE_SUBNET.3 $MACHINE_SUBNET\"";
        Process shell = new ProcessBuilder("bash", "-c", echo, "bash", env).redirectErrorStream(true).start();
        String sourced = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, shell.waitFor(), sourced);
        assertEquals(sourced, TestbedNetwork.node(7) + " " + TestbedNetwork.machine(3) + " " + TestbedNetwork.machineSubnet());
    }
}
