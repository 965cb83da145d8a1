package io.hadooptipc.shuffle.doctor;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Whether the kernel's upstream version has the fixes for TIPC's known kernel bugs
 * ({@link KernelCve#TIPC}). A version says what upstream source a kernel is built from,
 * not what its distributor patched in: Debian, Ubuntu and Red Hat backport fixes without
 * changing the upstream number. So a kernel older than a fix is a FAIL only when the bug is
 * remote and no distributor is seen (a kernel built from kernel.org's source); a
 * distribution's kernel gets a WARN that says where to look up each CVE.
 */
final class KernelFixesCheck {
    static final String NAME = "kernel-fixes";
    /** Debian's package version in /proc/version: {@code … Debian 6.1.192-2 (2026-11-16)}. */
    private static final Pattern DEBIAN_PACKAGE = Pattern.compile("Debian (\\d+\\.\\d+(?:\\.\\d+)?)\\S* \\(\\d{4}-\\d{2}-\\d{2}\\)");
    /** Release suffixes of distributions whose kernels carry backports: Red Hat family, Fedora, Amazon, SUSE. */
    private static final Pattern VENDOR_RELEASE = Pattern.compile("\\.el\\d|\\.fc\\d|\\.amzn\\d|uek|-default$");

    /** The upstream version a kernel is built from, and who built it (empty: built from upstream's source). */
    static final class Upstream {
        private final KernelVersion version;
        private final String source;
        private final Optional<String> vendor;

        Upstream(KernelVersion version, String source, Optional<String> vendor) {
            this.version = version;
            this.source = source;
            this.vendor = vendor;
        }

        public KernelVersion version() {
            return version;
        }

        public String source() {
            return source;
        }

        public Optional<String> vendor() {
            return vendor;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Upstream)) {
                return false;
            }
            Upstream that = (Upstream) o;
            return Objects.equals(version, that.version) && Objects.equals(source, that.source)
                    && Objects.equals(vendor, that.vendor);
        }

        @Override
        public int hashCode() {
            return Objects.hash(version, source, vendor);
        }

        @Override
        public String toString() {
            return "Upstream[version=" + version + ", source=" + source + ", vendor=" + vendor + "]";
        }
    }

    private KernelFixesCheck() {
    }

    /** @param tipcAvailable whether TIPC is in this kernel or can be loaded (else its bugs are unreachable) */
    static Check of(SystemRoot root, boolean tipcAvailable) {
        if (!tipcAvailable) {
            return Check.skip(NAME, "TIPC is not in this kernel or cannot be loaded (see " + TipcModuleCheck.NAME + ")");
        }
        Optional<Upstream> found = upstream(root);
        if (!found.isPresent()) {
            return new Check(NAME, Check.Status.WARN, "the kernel's version cannot be read ("
                    + root.path("/proc/sys/kernel/osrelease") + ")", "");
        }
        Upstream upstream = found.get();
        KernelVersion version = upstream.version();
        List<KernelCve> affecting = KernelCve.TIPC.stream().filter(cve -> cve.affects(version)).collect(Collectors.toList());
        String all = KernelCve.TIPC.stream().map(KernelCve::id).collect(Collectors.joining(", "));
        if (affecting.isEmpty()) {
            return Check.ok(NAME, "kernel " + upstream.source() + " is at or past the upstream fixes of " + all);
        }
        String listed = affecting.stream().map(cve -> cve.describe(version)).collect(Collectors.joining("; "));
        String ids = affecting.stream().map(KernelCve::id).collect(Collectors.joining(" "));
        if (upstream.vendor().isPresent()) {
            String vendor = upstream.vendor().get();
            return new Check(NAME, Check.Status.WARN, "kernel " + upstream.source() + " is older upstream than the fixes of "
                    + listed + "; " + vendor + " backports fixes without changing the upstream version, so a version"
                    + " test cannot tell whether this kernel has them", lookUp(vendor, ids));
        }
        boolean remote = affecting.stream().anyMatch(KernelCve::remote);
        return new Check(NAME, remote ? Check.Status.FAIL : Check.Status.WARN, "kernel " + upstream.source()
                + " (no distributor's backports seen) lacks the upstream fixes of " + listed,
                "upgrade to a kernel with the fixes (the stable release named, or a later mainline release) and reboot;"
                        + " until then let no untrusted host reach this node's TIPC bearers");
    }

    /** Ubuntu and Debian name the upstream version they build from; elsewhere the release starts with it. */
    static Optional<Upstream> upstream(SystemRoot root) {
        Optional<String> release = root.kernelRelease();
        if (!release.isPresent()) {
            return Optional.empty();
        }
        Optional<String> signature = root.read("/proc/version_signature").map(String::trim);
        if (signature.isPresent() && signature.get().startsWith("Ubuntu ")) {
            String[] words = signature.get().split("\\s+");
            Optional<KernelVersion> base = KernelVersion.parse(words[words.length - 1]);
            if (base.isPresent()) {
                return Optional.of(new Upstream(base.get(), release.get() + " (" + signature.get() + ")",
                        Optional.of("Ubuntu")));
            }
        }
        Matcher debian = DEBIAN_PACKAGE.matcher(root.read("/proc/version").orElse(""));
        if (debian.find()) {
            return Optional.of(new Upstream(KernelVersion.of(debian.group(1)), release.get() + " (Debian "
                    + debian.group(1) + ")", Optional.of("Debian")));
        }
        Optional<KernelVersion> version = KernelVersion.parse(release.get());
        if (!version.isPresent()) {
            return Optional.empty();
        }
        Optional<String> vendor = VENDOR_RELEASE.matcher(release.get()).find()
                ? Optional.of(Distribution.of(root.osRelease()).name()) : Optional.empty();
        return Optional.of(new Upstream(version.get(), release.get(), vendor));
    }

    private static String lookUp(String vendor, String ids) {
        if (vendor.equals("Debian")) {
            return "look up each of " + ids + " at https://security-tracker.debian.org/tracker/<CVE> against"
                    + " this kernel's package version; if it is not fixed there, upgrade the kernel and reboot";
        }
        if (vendor.equals("Ubuntu")) {
            return "look up each of " + ids + " at https://ubuntu.com/security/<CVE> for this release;"
                    + " if it is not fixed there, upgrade the kernel and reboot";
        }
        return "see whether " + vendor + "'s kernel has the fixes: rpm -q --changelog kernel-core | grep -e "
                + ids.replace(" ", " -e ") + " (Red Hat's changelog names the CVEs it backports),"
                + " or the vendor's advisory for each; if not, upgrade the kernel and reboot";
    }
}
