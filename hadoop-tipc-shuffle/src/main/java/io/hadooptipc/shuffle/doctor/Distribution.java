package io.hadooptipc.shuffle.doctor;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The node's distribution, from os-release: which package brings TIPC's module and which
 * hardening baselines ask to block it.
 */
final class Distribution {
    private final Family family;
    private final String name;
    private final String versionId;

    Distribution(Family family, String name, String versionId) {
        this.family = family;
        this.name = name;
        this.versionId = versionId;
    }

    enum Family { DEBIAN, UBUNTU, RED_HAT, OTHER }

    static Distribution of(Map<String, String> osRelease) {
        String id = osRelease.getOrDefault("ID", "");
        List<String> like = Arrays.asList(osRelease.getOrDefault("ID_LIKE", "").split("\\s+"));
        Family family;
        if (id.equals("ubuntu") || like.contains("ubuntu")) {
            family = Family.UBUNTU;
        } else if (id.equals("debian") || like.contains("debian")) {
            family = Family.DEBIAN;
        } else if (Arrays.asList("rhel", "centos", "rocky", "almalinux", "ol", "fedora").contains(id)
                || like.contains("rhel") || like.contains("fedora")) {
            family = Family.RED_HAT;
        } else {
            family = Family.OTHER;
        }
        return new Distribution(family, osRelease.getOrDefault("PRETTY_NAME", id.isEmpty() ? "unknown" : id),
                osRelease.getOrDefault("VERSION_ID", ""));
    }

    /** How to get tipc.ko for the running kernel {@code release}. */
    String moduleSource(String release) {
        switch (family) {
            case DEBIAN:
                return "Debian's kernels build TIPC as a module in the kernel package itself:"
                        + " apt install --reinstall linux-image-" + release;
            case UBUNTU:
                return "Ubuntu ships tipc.ko in the extra modules: apt install linux-modules-extra-" + release;
            case RED_HAT:
                return "RHEL 8/9/10 ship tipc.ko in kernel-modules-extra: dnf install kernel-modules-extra-"
                        + release;
            default:
                return "boot a kernel built with CONFIG_TIPC=m (or =y)";
        }
    }

    /** The baselines that ask for a line blocking tipc on this distribution. */
    String blockingBaselines() {
        String major = versionId.contains(".") ? versionId.substring(0, versionId.indexOf('.')) : versionId;
        switch (family) {
            case RED_HAT:
                switch (major) {
                    case "8":
                        return "the DISA STIG for RHEL 8 (V-230497)";
                    case "9":
                        return "the DISA STIG for RHEL 9 (V-257808)";
                    case "10":
                        return "the DISA STIG for RHEL 10 (V-281314)";
                    default:
                        return "the DISA STIGs for RHEL 8, 9 and 10 (V-230497, V-257808, V-281314)";
                }
            case UBUNTU:
            case DEBIAN:
                return "the CIS benchmark for " + name + " (\"Ensure tipc kernel module is not available\")";
            default:
                return "hardening baselines such as the DISA STIGs for RHEL (V-230497, V-257808, V-281314)"
                        + " and the CIS benchmarks (\"Ensure tipc kernel module is not available\")";
        }
    }

    public Family family() {
        return family;
    }

    public String name() {
        return name;
    }

    public String versionId() {
        return versionId;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Distribution)) {
            return false;
        }
        Distribution that = (Distribution) o;
        return Objects.equals(family, that.family) && Objects.equals(name, that.name)
                && Objects.equals(versionId, that.versionId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(family, name, versionId);
    }

    @Override
    public String toString() {
        return "Distribution[family=" + family + ", name=" + name + ", versionId=" + versionId + "]";
    }
}
