package io.hadooptipc.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The machine a benchmark ran on, for its summary: results are only comparable within one run. */
public final class Machine {
    /** Set by the benchmark scripts to the host's CPU and kernel, which a guest cannot see. */
    static final String HOST_PROPERTY = "bench.host";

    private Machine() {
    }

    /** The Machine: line that {@link #describe} wrote at the head of a summary.md, if {@code summary} has one. */
    public static Optional<String> lineOf(List<String> summary) {
        return summary.stream().filter(l -> l.startsWith("Machine: ")).findFirst();
    }

    public static String describe() {
        String cpu = read("/proc/cpuinfo").lines().filter(l -> l.startsWith("model name")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("unknown CPU");
        long cpus = read("/proc/cpuinfo").lines().filter(l -> l.startsWith("processor")).count();
        String kernel = read("/proc/sys/kernel/osrelease").strip();
        String virt = Optional.ofNullable(System.getenv("TIPC_TESTBED_MACHINES"))
                .map(m -> "in the TIPC testbed (QEMU, software emulation): " + m
                        + " guests on a host bridge" + mtu() + ", one TIPC node each" + bearer()
                        + ", so TIPC crosses real links")
                .or(() -> Optional.ofNullable(System.getenv("TIPC_TESTBED_NODES"))
                        .map(n -> "in the TIPC testbed (QEMU, software emulation): " + n + " TIPC nodes as network"
                                + " namespaces of one guest, whose kernel passes TIPC messages between them"
                                + " socket to socket, bypassing the link"))
                .orElse("on the host");
        String host = Optional.ofNullable(System.getProperty(HOST_PROPERTY)).map(h -> " Host: " + h + ".").orElse("");
        // Other work on a shared machine moves absolute figures; the load says how much there was.
        String load = String.join(" ", Arrays.copyOf(read("/proc/loadavg").split(" "), 3));
        return String.format("Machine: %d x %s, kernel %s, %s, Java %s, load average %s at the end (this run included).%s%n", cpus, cpu,
                kernel, virt, System.getProperty("java.version"), load, host);
    }

    /** The MTU sets how many frames TIPC and TCP send: tipc-vm gives it to every machine. */
    private static String mtu() {
        return Optional.ofNullable(System.getenv("TIPC_TESTBED_MTU")).map(m -> " with MTU " + m).orElse("");
    }

    /** TIPC's UDP bearer adds IP and UDP headers to every packet; the default Ethernet bearer goes unsaid. */
    private static String bearer() {
        String bearer = System.getenv("TIPC_TESTBED_BEARER");
        return bearer == null || bearer.equals("eth") ? "" : " on TIPC's " + bearer.toUpperCase(Locale.ROOT) + " bearer";
    }

    /** The kernel's TCP congestion control, e.g. cubic: TCP's figures depend on it. */
    public static String tcpCongestionControl() {
        String name = read("/proc/sys/net/ipv4/tcp_congestion_control").strip();
        return name.isEmpty() ? "unknown congestion control" : name;
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (IOException e) {
            return "";
        }
    }
}
