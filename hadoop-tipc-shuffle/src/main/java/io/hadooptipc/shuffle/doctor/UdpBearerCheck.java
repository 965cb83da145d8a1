package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.conf.Configuration;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A UDP bearer carries TIPC over IP, so its port takes packets from any host that can route
 * to it, not only from the Ethernet segment an eth bearer is confined to; TIPC's receive path
 * has had remotely reachable bugs (CVE-2024-36886 was reached through the UDP bearer), and the
 * UDP bearer's own CVE-2024-42284. Which addresses the port is bound to shows in
 * /proc/net/udp{,6}; who can reach it is up to the firewall, which the doctor does not read.
 */
final class UdpBearerCheck {
    static final String NAME = "udp-bearer";
    /** The UDP bearer's port when enabled without {@code localport}. */
    static final int DEFAULT_PORT = 6118;

    private UdpBearerCheck() {
    }

    /** @param bearers the bearers check, whose OK finding lists the bearers, e.g. {@code eth:eth0, udp:b1} */
    static Check of(Check bearers, Configuration conf, SystemRoot root) {
        if (bearers.status() != Check.Status.OK) {
            return Check.skip(NAME, "needs the bearer list (see " + BearerCheck.NAME + ")");
        }
        List<String> udp = Arrays.stream(bearers.finding().split(",\\s*")).filter(b -> b.startsWith("udp:")).collect(Collectors.toList());
        if (udp.isEmpty()) {
            return Check.ok(NAME, "no UDP bearer: TIPC is not reachable over IP");
        }
        List<InetAddress> bound = boundAddresses(root, DEFAULT_PORT);
        String port = bound.isEmpty()
                ? "no socket on the default port " + DEFAULT_PORT + " (enabled with another localport?)"
                : "UDP port " + DEFAULT_PORT + " is bound on "
                + bound.stream().map(InetAddress::getHostAddress).collect(Collectors.joining(", "))
                + (bound.stream().anyMatch(InetAddress::isAnyLocalAddress) ? " (every address of this host)" : "")
                + ", open to every host that can route to it unless a firewall says otherwise";
        String what = String.join(", ", udp) + ": " + port;
        boolean declared = conf.getBoolean(TipcShuffleConfig.LINKS_ENCRYPTED, TipcShuffleConfig.DEFAULT_LINKS_ENCRYPTED);
        boolean kernelCrypto = KernelLinkCrypto.whyNotEncrypted(root.path(KernelLinkCrypto.KALLSYMS.toString())) == null;
        if (declared && kernelCrypto) {
            return Check.ok(NAME, what + "; links declared encrypted (" + TipcShuffleConfig.LINKS_ENCRYPTED
                    + " = true, unverified: see " + EncryptionCheck.NAME + ")");
        }
        return new Check(NAME, Check.Status.WARN, what + "; the links are not declared encrypted"
                + (kernelCrypto ? "" : " and this kernel shows no TIPC encryption")
                + ", so TIPC crosses IP networks in the clear; the UDP bearer's own CVE-2024-42284 and the remote"
                + " CVE-2024-36886 make its port worth guarding (see " + KernelFixesCheck.NAME + ")",
                "let only the cluster's nodes reach UDP port " + DEFAULT_PORT + " (e.g. nft add rule inet filter input"
                        + " udp dport " + DEFAULT_PORT + " ip saddr != { <node addresses> } drop); encrypt the links: "
                        + EncryptionCheck.SET_KEY + ", and declare it with " + TipcShuffleConfig.LINKS_ENCRYPTED
                        + " = true; or, where the nodes share an Ethernet segment, use an eth bearer instead");
    }

    /** The local addresses of UDP sockets on {@code port}, from /proc/net/udp and /proc/net/udp6. */
    static List<InetAddress> boundAddresses(SystemRoot root, int port) {
        List<InetAddress> addresses = new ArrayList<>();
        for (String table : Arrays.asList("/proc/net/udp", "/proc/net/udp6")) {
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
