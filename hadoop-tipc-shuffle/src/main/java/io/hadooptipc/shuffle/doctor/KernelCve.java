package io.hadooptipc.shuffle.doctor;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A TIPC bug of the kernel with its upstream fixes: the mainline release that first has the
 * fix, and the first release of each stable branch the fix was backported to. A kernel of a
 * branch not listed is judged by the mainline release alone.
 *
 * @param remote whether packets from the network reach the bug (else a local user or the
 *               administrator's own configuration does)
 */
final class KernelCve {
    private final String id;
    private final boolean remote;
    private final String bug;
    private final KernelVersion introduced;
    private final KernelVersion mainline;
    private final List<KernelVersion> stable;

    KernelCve(String id, boolean remote, String bug, KernelVersion introduced, KernelVersion mainline,
            List<KernelVersion> stable) {
        this.id = id;
        this.remote = remote;
        this.bug = bug;
        this.introduced = introduced;
        this.mainline = mainline;
        this.stable = stable;
    }

    /**
     * Sources: the CVE records (cve.org; for the 2024 ones the kernel CNA lists the stable
     * releases), and for the older two the stable review series and queues that carried the fix.
     */
    static final List<KernelCve> TIPC = Arrays.asList(
            new KernelCve("CVE-2021-43267", true, "heap overflow on a received MSG_CRYPTO key message"
                    + " (kernels with CONFIG_TIPC_CRYPTO)",
                    KernelVersion.of("5.10"), KernelVersion.of("5.15"), versions("5.10.77", "5.14.16")),
            new KernelCve("CVE-2022-0435", true, "stack overflow on a received link monitoring domain record",
                    KernelVersion.of("4.8"), KernelVersion.of("5.17"),
                    versions("4.9.301", "4.14.266", "4.19.229", "5.4.179", "5.10.100", "5.15.23")),
            new KernelCve("CVE-2024-36886", true, "use after free reassembling received fragments (tipc_buf_append)",
                    KernelVersion.of("4.1"), KernelVersion.of("6.9"),
                    versions("4.19.314", "5.4.276", "5.10.217", "5.15.159", "6.1.91", "6.6.31", "6.8.10")),
            new KernelCve("CVE-2024-42284", false, "out-of-bounds access printing an invalid UDP bearer address"
                    + " (tipc_udp_addr2str)",
                    KernelVersion.of("4.1"), KernelVersion.of("6.11"),
                    versions("4.19.320", "5.4.282", "5.10.224", "5.15.165", "6.1.103", "6.6.44", "6.10.3")));

    /** Whether the upstream source of {@code kernel} has the bug and not its fix. */
    boolean affects(KernelVersion kernel) {
        if (kernel.compareTo(introduced) < 0 || kernel.compareTo(mainline) >= 0) {
            return false;
        }
        return fixIn(kernel).map(fix -> kernel.compareTo(fix) < 0).orElse(true);
    }

    /** The stable release of {@code kernel}'s branch that has the fix, if the fix was backported to it. */
    Optional<KernelVersion> fixIn(KernelVersion kernel) {
        return stable.stream().filter(kernel::sameBranch).findFirst();
    }

    /** E.g. {@code CVE-2024-36886 (remote: …; fixed in 6.9 and 6.1.91)}. */
    String describe(KernelVersion kernel) {
        return id + " (" + (remote ? "remote: " : "local: ") + bug + "; fixed in " + mainline
                + fixIn(kernel).map(fix -> " and " + fix).orElse("") + ")";
    }

    private static List<KernelVersion> versions(String... versions) {
        return java.util.Arrays.stream(versions).map(KernelVersion::of).collect(Collectors.toList());
    }

    public String id() {
        return id;
    }

    public boolean remote() {
        return remote;
    }

    public String bug() {
        return bug;
    }

    public KernelVersion introduced() {
        return introduced;
    }

    public KernelVersion mainline() {
        return mainline;
    }

    public List<KernelVersion> stable() {
        return stable;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KernelCve)) {
            return false;
        }
        KernelCve that = (KernelCve) o;
        return Objects.equals(id, that.id) && remote == that.remote && Objects.equals(bug, that.bug)
                && Objects.equals(introduced, that.introduced) && Objects.equals(mainline, that.mainline)
                && Objects.equals(stable, that.stable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, remote, bug, introduced, mainline, stable);
    }

    @Override
    public String toString() {
        return "KernelCve[id=" + id + ", remote=" + remote + ", bug=" + bug + ", introduced=" + introduced
                + ", mainline=" + mainline + ", stable=" + stable + "]";
    }
}
