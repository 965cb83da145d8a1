package io.hadooptipc.testbed;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The testbed's addresses, as testbed/network.env defines them for its scripts and for this. */
public final class TestbedNetwork {
    private static final Properties ENV = load();

    private TestbedNetwork() {
    }

    /** The address of node {@code i} (namespace n<i>) of a guest started with {@code tipc-vm --nodes}. */
    public static String node(int i) {
        return get("NODE_SUBNET") + "." + i;
    }

    /** The address of machine {@code k} (guest m<k>) of {@code tipc-vm --machines}. */
    public static String machine(int k) {
        return machineSubnet() + "." + k;
    }

    /** The first three octets of the machines' addresses, without the dot. */
    public static String machineSubnet() {
        return get("MACHINE_SUBNET");
    }

    private static String get(String key) {
        String value = ENV.getProperty(key);
        if (value == null) {
            throw new IllegalStateException("testbed/network.env defines no " + key);
        }
        return value;
    }

    private static Properties load() {
        try (InputStream in = TestbedNetwork.class.getResourceAsStream("network.env")) {
            if (in == null) {
                throw new IllegalStateException("network.env is not beside " + TestbedNetwork.class.getName());
            }
            Properties p = new Properties();
            p.load(in); // KEY=value lines and # comments read the same in a shell and here
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
