package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.conf.Configuration;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A UDP bearer carries TIPC over IP, so its port takes packets from any host that can route
 * to it, not only from the Ethernet segment an eth bearer is confined to; TIPC's receive path
 * has had remotely reachable bugs (CVE-2024-36886 was reached through the UDP bearer), and the
 * UDP bearer's own CVE-2024-42284. Each UDP bearer's address, port and peers (the remote IPs of
 * unicast discovery, or its multicast group) come from {@code tipc bearer get}; which addresses
 * the port is bound to shows in /proc/thread-self/net/udp{,6}; who can reach it is up to the firewall, which
 * the doctor does not read.
 */
final class UdpBearerCheck {
    static final String NAME = "udp-bearer";
    /** The UDP bearer's port when enabled without {@code localport}. */
    static final int DEFAULT_PORT = 6118;

    private UdpBearerCheck() {
    }

    /** {@code tipc bearer get media udp name NAME PROPERTY}: PROPERTY is localip, localport or remoteip. */
    static List<String> getCommand(String name, String property) {
        return Arrays.asList("tipc", "bearer", "get", "media", "udp", "name", name, property);
    }

    /**
     * @param bearers the bearers check, whose OK finding lists the bearers, e.g. {@code eth:eth0, udp:b1}
     * @param tipc    runs a {@code tipc} command ({@link CommandRun#of} on a node)
     */
    static Check of(Check bearers, Configuration conf, SystemRoot root, Function<List<String>, CommandRun> tipc) {
        if (bearers.status() != Check.Status.OK) {
            return Check.skip(NAME, "needs the bearer list (see " + BearerCheck.NAME + ")");
        }
        List<String> udp = Arrays.stream(bearers.finding().split(",\\s*")).filter(b -> b.startsWith("udp:")).collect(Collectors.toList());
        if (udp.isEmpty()) {
            return Check.ok(NAME, "no UDP bearer: TIPC is not reachable over IP");
        }
        List<String> described = new ArrayList<>();
        Set<Integer> ports = new LinkedHashSet<>();
        for (String bearer : udp) {
            UdpBearer b = UdpBearer.read(bearer.substring("udp:".length()), tipc);
            described.add(bearer + " " + b.describe());
            ports.add(b.port());
        }
        List<String> bindings = new ArrayList<>();
        for (int port : ports) {
            List<InetAddress> bound = boundAddresses(root, port);
            bindings.add(bound.isEmpty()
                    ? "no socket on UDP port " + port
                    : "UDP port " + port + " is bound on "
                    + bound.stream().map(InetAddress::getHostAddress).collect(Collectors.joining(", "))
                    + (bound.stream().anyMatch(InetAddress::isAnyLocalAddress) ? " (every address of this host)" : ""));
        }
        String what = String.join("; ", described) + "; " + String.join(", ", bindings)
                + ", open to every host that can route to it unless a firewall says otherwise";
        String portList = ports.stream().map(String::valueOf).collect(Collectors.joining(", "));
        boolean declared = conf.getBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, TipcShuffleConfig.DEFAULT_LINKS_ENCRYPTED);
        boolean kernelCrypto = KernelLinkCrypto.whyNotEncrypted(root.path(KernelLinkCrypto.KALLSYMS.toString())) == null;
        if (declared && kernelCrypto) {
            // Tested in the testbed: a keyed node took plaintext discovery, link and name frames from an
            // unprivileged UDP socket on another node (benchmarks/results/tipc-link-key-injection).
            return new Check(NAME, Check.Status.WARN, what + "; links declared encrypted ("
                    + TipcShuffleConfig.LINKS_ENCRYPTED + " = true, unverified: see " + EncryptionCheck.NAME + "), which"
                    + " keeps TIPC's traffic from whoever reads the network but not plaintext TIPC frames from whoever"
                    + " can send to this port: any process on any node, unprivileged, can add nodes, links and names"
                    + " to this node and reset its links, though it reads nothing",
                    "where the nodes share an Ethernet segment, use an eth bearer (sending raw frames takes"
                            + " CAP_NET_RAW); otherwise let only the cluster's nodes reach UDP port " + portList
                            + " and watch the names (" + PublishedNames.OWN + ")");
        }
        return new Check(NAME, Check.Status.WARN, what + "; the links are not declared encrypted"
                + (kernelCrypto ? "" : " and this kernel shows no TIPC encryption")
                + ", so TIPC crosses IP networks in the clear; the UDP bearer's own CVE-2024-42284 and the remote"
                + " CVE-2024-36886 make its port worth guarding (see " + KernelFixesCheck.NAME + ")",
                "let only the cluster's nodes reach UDP port " + portList + " (e.g. nft add rule inet filter input"
                        + " udp dport " + (ports.size() == 1 ? portList : "{ " + portList + " }")
                        + " ip saddr != { <node addresses> } drop); encrypt the links: "
                        + EncryptionCheck.SET_KEY + ", and declare it with " + TipcShuffleConfig.LINKS_ENCRYPTED
                        + " = true; or, where the nodes share an Ethernet segment, use an eth bearer instead");
    }

    /**
     * One UDP bearer as {@code tipc bearer get} shows it: its local address and port, and its remote
     * addresses (the peers of unicast discovery, or one multicast group); {@code unreadable} says why
     * they could not be read, and then the port is taken to be the default.
     */
    static final class UdpBearer {
        private final String localIp;
        private final int port;
        private final List<String> remote;
        private final String unreadable;

        UdpBearer(String localIp, int port, List<String> remote, String unreadable) {
            this.localIp = localIp;
            this.port = port;
            this.remote = remote;
            this.unreadable = unreadable;
        }

        static UdpBearer read(String name, Function<List<String>, CommandRun> tipc) {
            CommandRun ip = tipc.apply(getCommand(name, "localip"));
            CommandRun port = tipc.apply(getCommand(name, "localport"));
            CommandRun remote = tipc.apply(getCommand(name, "remoteip"));
            for (CommandRun run : Arrays.asList(ip, port, remote)) {
                if (!run.succeeded()) {
                    return new UdpBearer("", DEFAULT_PORT, Collections.emptyList(), run.failure());
                }
            }
            try {
                return new UdpBearer(ip.output().trim(), Integer.parseInt(port.output().trim()),
                        SystemRoot.linesOf(remote.output()).stream().map(String::trim).filter(l -> !l.isEmpty())
                                .collect(Collectors.toList()), "");
            } catch (NumberFormatException e) {
                return new UdpBearer("", DEFAULT_PORT, Collections.emptyList(), "`" + port.typed()
                        + "` printed no port: " + port.output().trim());
            }
        }

        int port() {
            return port;
        }

        String describe() {
            if (!unreadable.isEmpty()) {
                return "(its addresses could not be read: " + unreadable + "; assuming port " + port + ")";
            }
            String peers;
            if (remote.size() == 1 && isMulticast(remote.get(0))) {
                peers = "discovering peers by multicast to " + remote.get(0);
            } else if (remote.isEmpty()) {
                peers = "no peer";
            } else {
                peers = "unicast peers " + String.join(", ", remote);
            }
            return "on " + localIp + " port " + port + ", " + peers;
        }

        private static boolean isMulticast(String ip) {
            try {
                return InetAddress.getByName(ip).isMulticastAddress();
            } catch (UnknownHostException e) {
                return false;
            }
        }
    }

    /**
     * The local addresses of UDP sockets on {@code port} in this thread's network namespace. /proc/net
     * shows the namespace of the process's first thread, which a thread that entered another (the
     * kernel tests' nodes) does not share; the tipc tool, started from this thread, sees this thread's.
     */
    static List<InetAddress> boundAddresses(SystemRoot root, int port) {
        List<InetAddress> addresses = new ArrayList<>();
        for (String table : Arrays.asList("/proc/thread-self/net/udp", "/proc/thread-self/net/udp6")) {
            for (String line : root.lines(table)) {
                String[] fields = line.trim().split("\\s+");
                // "sl local_address rem_address …": local_address is HEXADDR:HEXPORT
                if (fields.length < 2 || !fields[0].endsWith(":")) {
                    continue;
                }
                String[] local = fields[1].split(":");
                if (local.length == 2 && (local[0].length() == 8 || local[0].length() == 32)
                        && Integer.parseInt(local[1], 16) == port) {
                    addresses.add(address(local[0]));
                }
            }
        }
        return addresses.stream().distinct().collect(Collectors.toList());
    }

    private static byte[] parseHex(String hex) {
        if (hex.length() % 2 != 0) {
            throw new IllegalArgumentException("odd number of hex digits: " + hex);
        }
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    /** The kernel prints each 32-bit word of the address in host byte order (little-endian on x86 and arm64). */
    private static InetAddress address(String hex) {
        byte[] words = parseHex(hex);
        byte[] bytes = new byte[words.length];
        for (int w = 0; w < words.length; w += 4) {
            for (int b = 0; b < 4; b++) {
                bytes[w + b] = words[w + 3 - b];
            }
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes, as boundAddresses checked
        }
    }
}
