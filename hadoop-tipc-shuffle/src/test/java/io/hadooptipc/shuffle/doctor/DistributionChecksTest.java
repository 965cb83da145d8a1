package io.hadooptipc.shuffle.doctor;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The doctor's kernel checks (tipc-module, kernel-fixes, udp-bearer) against trees of
 * fixture files laid out as the distributions lay out /proc, /sys, /lib/modules and /etc.
 */
class DistributionChecksTest {
    static final String DEBIAN_RELEASE = "6.1.0-56-amd64";
    /** Debian 12's /proc/version (the testbed's kernel). */
    static final String DEBIAN_VERSION = "Linux version 6.1.0-56-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian"
            + " 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-2"
            + " (2026-11-16)\n";
    static final String DEBIAN = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n";
    static final String UBUNTU = "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"22.04\"\n";
    static final String RHEL9 = "NAME=\"Red Hat Enterprise Linux\"\nPRETTY_NAME=\"Red Hat Enterprise Linux 9.4 (Plow)\"\n"
            + "ID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"9.4\"\n";
    static final String RHEL10 = "PRETTY_NAME=\"Red Hat Enterprise Linux 10.0 (Coughlan)\"\nID=\"rhel\"\n"
            + "ID_LIKE=\"centos fedora\"\nVERSION_ID=\"10.0\"\n";

    @TempDir
    Path dir;
    SystemRoot root;

    @BeforeEach
    void root() {
        root = new SystemRoot(dir);
    }

    /** Writes {@code text} to the absolute path {@code path} under the fixture root. */
    void file(String path, String text) {
        try {
            Path p = root.path(path);
            Files.createDirectories(p.getParent());
            Files.writeString(p, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A kernel {@code release} on {@code osRelease}, with its module tree (modules.builtin without tipc). */
    void kernel(String release, String osRelease) {
        file("/proc/sys/kernel/osrelease", release + "\n");
        file("/etc/os-release", osRelease);
        file("/proc/modules", "udp_tunnel 28672 0 - Live 0x0000000000000000\n");
        file("/lib/modules/" + release + "/modules.builtin", "kernel/arch/x86/crypto/libblake2s-x86_64.ko\n");
    }

    Check module() {
        return TipcModuleCheck.examine(root).check();
    }

    static void assertHas(Check check, Check.Status status, String... parts) {
        assertEquals(status, check.status(), check.toString());
        for (String part : parts) {
            assertTrue((check.finding() + " | fix: " + check.fix()).contains(part), "'" + part + "' in " + check);
        }
    }

    // tipc-module

    @Test
    void absentSaysWhichPackageBringsTheModuleOnEachDistribution() {
        kernel(DEBIAN_RELEASE, DEBIAN);
        assertHas(module(), Check.Status.FAIL, "kernel 6.1.0-56-amd64 has no TIPC",
                "no kernel/net/tipc/tipc.ko[.xz|.zst|.gz] under /lib/modules/6.1.0-56-amd64",
                "apt install --reinstall linux-image-6.1.0-56-amd64");
        assertFalse(TipcModuleCheck.examine(root).available());

        kernel("5.15.0-100-generic", UBUNTU);
        assertHas(module(), Check.Status.FAIL, "apt install linux-modules-extra-5.15.0-100-generic");

        kernel("5.14.0-427.13.1.el9_4.x86_64", RHEL9);
        assertHas(module(), Check.Status.FAIL, "dnf install kernel-modules-extra-5.14.0-427.13.1.el9_4.x86_64");
    }

    @Test
    void absentWithoutAModuleTreeSaysTheKernelsModulesAreNotInstalled() {
        file("/proc/sys/kernel/osrelease", "6.18.44-custom\n");
        assertHas(module(), Check.Status.FAIL, "no /lib/modules/6.18.44-custom: the running kernel's modules are not installed",
                "CONFIG_TIPC=m");
    }

    @Test
    void anInstallLineBlocksTheModuleAndIsNamedWithItsFileLineAndBaseline() {
        kernel("6.12.0-55.9.1.el10_0.x86_64", RHEL10);
        file("/lib/modules/6.12.0-55.9.1.el10_0.x86_64/kernel/net/tipc/tipc.ko.xz", "");
        file("/etc/modprobe.d/tipc.conf", "# STIG\n\ninstall tipc /bin/false\nblacklist tipc\n");
        Check check = module();
        assertHas(check, Check.Status.FAIL, "kernel/net/tipc/tipc.ko.xz is present but blocked",
                "/etc/modprobe.d/tipc.conf:3 (install tipc /bin/false)", "DISA STIG for RHEL 10 (V-281314)",
                "delete or comment out /etc/modprobe.d/tipc.conf:3");
        assertFalse(TipcModuleCheck.examine(root).available());

        file("/etc/os-release", RHEL9);
        assertHas(module(), Check.Status.FAIL, "DISA STIG for RHEL 9 (V-257808)");
        file("/etc/os-release", UBUNTU);
        assertHas(module(), Check.Status.FAIL, "CIS benchmark for Ubuntu 22.04.4 LTS (\"Ensure tipc kernel module is not available\")");
    }

    @Test
    void aBlacklistLineOnlyStopsLoadingOnDemand() {
        kernel("5.14.0-427.13.1.el9_4.x86_64", RHEL9);
        file("/lib/modules/5.14.0-427.13.1.el9_4.x86_64/kernel/net/tipc/tipc.ko.xz", "");
        file("/etc/modprobe.d/tipc-blacklist.conf", "# Remove the blacklist by adding a comment # at the start of the line.\n"
                + "blacklist tipc\n");
        assertHas(module(), Check.Status.WARN, "present but not loaded",
                "/etc/modprobe.d/tipc-blacklist.conf:2 (blacklist tipc)", "on demand", "modprobe tipc now");
        assertTrue(TipcModuleCheck.examine(root).available());
    }

    @Test
    void aFileInEtcHidesTheSameNameInLibAndOnlyConfFilesCount() {
        kernel(DEBIAN_RELEASE, DEBIAN);
        file("/lib/modules/" + DEBIAN_RELEASE + "/kernel/net/tipc/tipc.ko", "");
        file("/usr/lib/modprobe.d/tipc.conf", "install tipc /bin/true\n");
        file("/lib/modprobe.d/hardening.conf", "install tipc \\\n    /bin/true\n");
        assertHas(module(), Check.Status.FAIL, "/usr/lib/modprobe.d/tipc.conf:1",
                "/lib/modprobe.d/hardening.conf:1 (install tipc /bin/true)");

        file("/etc/modprobe.d/tipc.conf", "# TIPC carries the shuffle here\n");
        file("/etc/modprobe.d/hardening.conf.disabled", "install tipc /bin/true\n");
        file("/run/modprobe.d/hardening.conf", "install tipc /sbin/modprobe --ignore-install tipc\n");
        assertHas(module(), Check.Status.WARN, "kernel/net/tipc/tipc.ko is present but not loaded;"
                + " the first socket(AF_TIPC) loads it on demand", "/etc/modules-load.d/tipc.conf");
    }

    @Test
    void theKernelCommandLineCanBlockOrBlacklistIt() {
        kernel(DEBIAN_RELEASE, DEBIAN);
        file("/lib/modules/" + DEBIAN_RELEASE + "/kernel/net/tipc/tipc.ko", "");
        file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro modprobe.blacklist=sctp,tipc quiet\n");
        assertHas(module(), Check.Status.WARN, "/proc/cmdline:1 (modprobe.blacklist=sctp,tipc)");
        file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro module_blacklist=tipc\n");
        assertHas(module(), Check.Status.FAIL, "/proc/cmdline:1 (module_blacklist=tipc)", "CIS benchmark");
    }

    @Test
    void builtInCannotBeBlocked() {
        kernel("6.6.30", DEBIAN);
        file("/lib/modules/6.6.30/modules.builtin", "kernel/net/ipv4/udp_tunnel.ko\nkernel/net/tipc/tipc.ko\n");
        file("/etc/modprobe.d/tipc.conf", "install tipc /bin/true\n");
        assertHas(module(), Check.Status.OK, "built into kernel 6.6.30");
    }

    @Test
    void loadedIsOkUnlessALineWouldBlockItAfterAReboot() {
        kernel(DEBIAN_RELEASE, DEBIAN);
        file("/proc/modules", "tipc 290816 0 - Live 0x0000000000000000\nip6_udp_tunnel 16384 1 tipc, Live 0x0\n");
        assertHas(module(), Check.Status.OK, "loaded");
        file("/etc/modprobe.d/cis.conf", "install tipc /bin/true\n");
        assertHas(module(), Check.Status.WARN, "loaded now, but /etc/modprobe.d/cis.conf:1", "after a reboot");
    }

    @Test
    void aLoadableModuleIsFoundCompressedOrWhereModulesDepPutsIt() {
        kernel("6.8.0-45-generic", UBUNTU);
        file("/lib/modules/6.8.0-45-generic/kernel/net/tipc/tipc.ko.zst", "");
        assertHas(module(), Check.Status.WARN, "/lib/modules/6.8.0-45-generic/kernel/net/tipc/tipc.ko.zst is present");

        kernel("6.9.1-local", DEBIAN);
        file("/lib/modules/6.9.1-local/modules.dep", "updates/net/tipc/tipc.ko.gz: kernel/net/ipv4/udp_tunnel.ko\n");
        file("/lib/modules/6.9.1-local/updates/net/tipc/tipc.ko.gz", "");
        assertHas(module(), Check.Status.WARN, "/lib/modules/6.9.1-local/updates/net/tipc/tipc.ko.gz is present");
    }

    // kernel-fixes

    Check fixes() {
        return KernelFixesCheck.of(root, true);
    }

    @Test
    void anUpstreamKernelOlderThanARemoteFixFails() {
        kernel("6.1.80", DEBIAN);
        Check check = fixes();
        assertHas(check, Check.Status.FAIL, "kernel 6.1.80 (no distributor's backports seen)",
                "CVE-2024-36886 (remote:", "fixed in 6.9 and 6.1.91", "CVE-2024-42284 (local:", "fixed in 6.11 and 6.1.103");
        assertFalse(check.finding().contains("CVE-2022-0435"), check.finding());

        kernel("5.10.50", DEBIAN);
        assertHas(fixes(), Check.Status.FAIL, "CVE-2021-43267 (remote:", "fixed in 5.15 and 5.10.77",
                "CVE-2022-0435 (remote:", "fixed in 5.17 and 5.10.100");
        kernel("5.9.16", DEBIAN);
        assertFalse(fixes().finding().contains("CVE-2021-43267"), "introduced in 5.10: " + fixes());
    }

    @Test
    void anUpstreamKernelMissingOnlyTheLocalFixWarns() {
        kernel("6.1.95", DEBIAN);
        assertHas(fixes(), Check.Status.WARN, "CVE-2024-42284", "upgrade");
        assertFalse(fixes().finding().contains("CVE-2024-36886"), fixes().finding());
    }

    @Test
    void kernelsPastEveryFixAreOk() {
        kernel("6.18.44-fc-v657", DEBIAN);
        assertHas(fixes(), Check.Status.OK, "CVE-2021-43267, CVE-2022-0435, CVE-2024-36886, CVE-2024-42284");
        kernel("6.10.3", DEBIAN);
        assertEquals(Check.Status.OK, fixes().status(), fixes().toString());
    }

    @Test
    void debianIsJudgedByItsPackagesUpstreamVersionAndOnlyWarned() {
        kernel(DEBIAN_RELEASE, DEBIAN);
        file("/proc/version", DEBIAN_VERSION);
        assertHas(fixes(), Check.Status.OK, "6.1.0-56-amd64 (Debian 6.1.192)");

        file("/proc/version", DEBIAN_VERSION.replace("6.1.192-2 (2026-11-16)", "6.1.76-1 (2024-02-01)"));
        assertHas(fixes(), Check.Status.WARN, "(Debian 6.1.76)", "CVE-2024-36886", "a version test cannot tell",
                "https://security-tracker.debian.org/tracker/");
    }

    @Test
    void ubuntuAndRedHatKernelsOlderUpstreamOnlyWarnWithWhereToLook() throws IOException {
        kernel("5.15.0-100-generic", UBUNTU);
        file("/proc/version_signature", "Ubuntu 5.15.0-100.110-generic 5.15.143\n");
        assertHas(fixes(), Check.Status.WARN, "(Ubuntu 5.15.0-100.110-generic 5.15.143)", "CVE-2024-36886",
                "fixed in 6.9 and 5.15.159", "https://ubuntu.com/security/");

        Files.delete(root.path("/proc/version_signature"));
        kernel("5.14.0-427.13.1.el9_4.x86_64", RHEL9);
        assertHas(fixes(), Check.Status.WARN, "Red Hat Enterprise Linux 9.4 (Plow) backports fixes",
                "CVE-2021-43267", "CVE-2022-0435", "rpm -q --changelog kernel-core | grep -e CVE-2021-43267 -e CVE-2022-0435");
    }

    @Test
    void skippedWhenTheKernelCannotHaveTipc() {
        kernel("5.10.50", DEBIAN);
        assertEquals(Check.Status.SKIP, KernelFixesCheck.of(root, false).status());
    }

    // udp-bearer

    static final String UDP_HEADER = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
            + "   uid  timeout inode ref pointer drops\n";

    /**
     * {@code tipc bearer get media udp name b1 PROPERTY} answered with {@code outputs}' line for PROPERTY
     * (localip, localport, remoteip), as iproute2 6.1 prints them; any other command fails as the tool does.
     */
    static Function<List<String>, CommandRun> tipc(Map<String, String> outputs) {
        return command -> {
            String property = command.get(command.size() - 1);
            boolean known = command.equals(UdpBearerCheck.getCommand("b1", property)) && outputs.containsKey(property);
            return new CommandRun(command, CommandRun.Outcome.EXITED, known ? 0 : 1,
                    known ? outputs.get(property) : "error: Invalid argument\n");
        };
    }

    /** A bearer enabled without remoteip discovers its peers by multicast; the kernel then binds the port on every address. */
    static final Map<String, String> MULTICAST = Map.of("localip", "10.0.210.5\n", "localport", "6118\n",
            "remoteip", "228.0.16.1\n");

    @Test
    void aUdpBearerWithoutDeclaredEncryptionWarnsWithItsPortAndCves() {
        file("/proc/thread-self/net/udp", UDP_HEADER
                + "  39: 00000000:17E6 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0 0\n"
                + "  40: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        0 1 2 0 0\n");
        Check check = UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "eth:eth0, udp:b1"), new Configuration(false), root,
                tipc(MULTICAST));
        assertHas(check, Check.Status.WARN, "udp:b1 on 10.0.210.5 port 6118, discovering peers by multicast to 228.0.16.1",
                "UDP port 6118 is bound on 0.0.0.0 (every address of this host)",
                "CVE-2024-42284", "CVE-2024-36886", "this kernel shows no TIPC encryption",
                "udp dport 6118", "tipc node set key");
        assertFalse(check.finding().contains("eth:eth0"), check.finding());
    }

    @Test
    void aUdpBearerWithUnicastPeersNamesThemAndItsOwnAddress() {
        file("/proc/thread-self/net/udp", UDP_HEADER
                + "  39: 0100D30A:17E6 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0 0\n");
        Check check = UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "udp:b1"), new Configuration(false), root,
                tipc(Map.of("localip", "10.211.0.1\n", "localport", "6118\n", "remoteip", "10.211.0.2\n10.211.0.3\n")));
        assertHas(check, Check.Status.WARN, "udp:b1 on 10.211.0.1 port 6118, unicast peers 10.211.0.2, 10.211.0.3",
                "UDP port 6118 is bound on 10.211.0.1,");
        assertFalse(check.finding().contains("every address"), check.finding());
    }

    @Test
    void aUdpBearerOnAnotherPortIsCheckedAndGuardedOnThatPort() {
        file("/proc/thread-self/net/udp", UDP_HEADER
                + "  39: 00000000:17E6 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0 0\n"
                + "  40: 0100D30A:1B58 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0 0\n");
        Check check = UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "udp:b1"), new Configuration(false), root,
                tipc(Map.of("localip", "10.211.0.1\n", "localport", "7000\n", "remoteip", "10.211.0.2\n")));
        assertHas(check, Check.Status.WARN, "udp:b1 on 10.211.0.1 port 7000, unicast peers 10.211.0.2",
                "UDP port 7000 is bound on 10.211.0.1,", "UDP port 7000 (e.g.", "udp dport 7000 ");
        assertFalse(check.finding().contains("0.0.0.0"), check.finding());
    }

    @Test
    void aUdpBearerWhoseAddressesCannotBeReadIsCheckedOnTheDefaultPort() {
        file("/proc/thread-self/net/udp", UDP_HEADER
                + "  39: 00000000:17E6 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0 0\n");
        Check check = UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "udp:b1"), new Configuration(false), root, tipc(Map.of()));
        assertHas(check, Check.Status.WARN, "udp:b1 (its addresses could not be read: `tipc bearer get media udp name b1"
                        + " localip` failed (exit 1): error: Invalid argument; assuming port 6118)",
                "UDP port 6118 is bound on 0.0.0.0");
    }

    /** The link key keeps TIPC's traffic from being read, not plaintext frames from being sent to the port. */
    @Test
    void aUdpBearerOnOneAddressDeclaredEncryptedWarnsThatAnyProcessCanStillSendItFrames() {
        file("/proc/thread-self/net/udp6", UDP_HEADER
                + "   5: 000080FE000000000000000001000000:17E6 00000000000000000000000000000000:0000 07 0 0 0 0 0 0 2 0 0\n");
        file("/proc/thread-self/net/udp", UDP_HEADER
                + "  39: 05D2000A:17E6 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0 0\n");
        file("/proc/kallsyms", "ffffffffc0a1b2c0 t tipc_crypto_rcv\t[tipc]\n");
        Configuration declared = new Configuration(false);
        declared.setBoolean("mapreduce.shuffle.tipc.links.encrypted", true);
        Check check = UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "udp:b1"), declared, root, tipc(MULTICAST));
        assertHas(check, Check.Status.WARN, "bound on 10.0.210.5, fe80:0:0:0:0:0:0:1", "declared encrypted",
                "any process on any node, unprivileged");
        assertTrue(check.fix().contains("eth bearer"), check.fix());
        assertFalse(check.finding().contains("every address"), check.finding());
        assertHas(UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "udp:b1"), new Configuration(false), root, tipc(MULTICAST)),
                Check.Status.WARN, "the links are not declared encrypted");
    }

    @Test
    void noUdpBearerIsOkAndNoBearerListSkips() {
        assertHas(UdpBearerCheck.of(Check.ok(BearerCheck.NAME, "eth:eth0"), new Configuration(false), root, tipc(Map.of())),
                Check.Status.OK, "no UDP bearer");
        assertEquals(Check.Status.SKIP, UdpBearerCheck.of(new Check(BearerCheck.NAME, Check.Status.FAIL,
                "no bearer enabled", ""), new Configuration(false), root, tipc(Map.of())).status());
    }
}
