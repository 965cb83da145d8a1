package io.hadooptipc.shuffle.doctor;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where this kernel's TIPC is: built in, loaded, a module file that loads or is blocked by
 * modprobe's configuration, or absent (and which package brings it). Read before the
 * af-tipc check opens a socket, since that socket may load the module on demand.
 */
final class TipcModuleCheck {
    static final String NAME = "tipc-module";
    static final String MODULE = "tipc";
    /** The module's path in modules.builtin and modules.dep, before any compression suffix. */
    static final String MODULE_PATH = "kernel/net/tipc/tipc.ko";
    static final List<String> COMPRESSIONS = Arrays.asList("", ".xz", ".zst", ".gz");

    /** The check, and whether the kernel has TIPC now or can load it. */
    static final class Result {
        private final Check check;
        private final boolean available;

        Result(Check check, boolean available) {
            this.check = check;
            this.available = available;
        }

        public Check check() {
            return check;
        }

        public boolean available() {
            return available;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Result)) {
                return false;
            }
            Result that = (Result) o;
            return Objects.equals(check, that.check) && available == that.available;
        }

        @Override
        public int hashCode() {
            return Objects.hash(check, available);
        }

        @Override
        public String toString() {
            return "Result[check=" + check + ", available=" + available + "]";
        }
    }

    private TipcModuleCheck() {
    }

    static Result examine(SystemRoot root) {
        Optional<String> release = root.kernelRelease();
        if (!release.isPresent()) {
            return new Result(new Check(NAME, Check.Status.WARN, "cannot read " + root.path("/proc/sys/kernel/osrelease")
                    + ": the kernel release is unknown, so its modules cannot be looked up", ""), false);
        }
        String modules = "/lib/modules/" + release.get();
        if (root.lines(modules + "/modules.builtin").contains(MODULE_PATH)) {
            return new Result(Check.ok(NAME, "built into kernel " + release.get() + " (" + modules
                    + "/modules.builtin): modprobe's configuration cannot block it"), true);
        }
        ModprobeConfig.ModuleLines lines = ModprobeConfig.of(root, MODULE);
        Distribution distribution = Distribution.of(root.osRelease());
        if (loaded(root)) {
            if (!lines.blocking().isEmpty()) {
                return new Result(new Check(NAME, Check.Status.WARN, "loaded now, but " + describe(lines.blocking())
                        + " keeps it from loading again after a reboot (asked for by "
                        + distribution.blockingBaselines() + ")", unblockFix(lines.blocking())), true);
            }
            return new Result(Check.ok(NAME, "loaded (/proc/modules) in kernel " + release.get()), true);
        }
        Optional<String> file = moduleFile(root, modules);
        if (!file.isPresent()) {
            String source = distribution.moduleSource(release.get());
            boolean tree = Files.isDirectory(root.path(modules));
            return new Result(new Check(NAME, Check.Status.FAIL, "kernel " + release.get() + " has no TIPC: " + (tree
                    ? "no " + MODULE_PATH + "[.xz|.zst|.gz] under " + modules + " and not in its modules.builtin"
                    : "no " + modules + ": the running kernel's modules are not installed here"),
                    tree ? source + "; then modprobe tipc"
                            : "install the running kernel's modules, or boot a kernel that has TIPC (" + source + ")"),
                    false);
        }
        if (!lines.blocking().isEmpty()) {
            return new Result(new Check(NAME, Check.Status.FAIL, file.get() + " is present but blocked: "
                    + describe(lines.blocking()) + " replaces every load of tipc with a command that loads nothing,"
                    + " as " + distribution.blockingBaselines() + " asks", unblockFix(lines.blocking())), false);
        }
        if (!lines.blacklist().isEmpty()) {
            return new Result(new Check(NAME, Check.Status.WARN, file.get() + " is present but not loaded, and "
                    + describe(lines.blacklist()) + " keeps socket(AF_TIPC) from loading it on demand"
                    + " (an explicit modprobe still loads it)",
                    "modprobe tipc now; so that it is loaded after every boot, remove that blacklist line"
                            + " if your security policy allows TIPC here, or run modprobe tipc before the NodeManager starts"),
                    true);
        }
        return new Result(new Check(NAME, Check.Status.WARN, file.get() + " is present but not loaded;"
                + " the first socket(AF_TIPC) loads it on demand",
                "to have it from boot on: modprobe tipc; echo tipc > /etc/modules-load.d/tipc.conf"), true);
    }

    /** Loaded: listed in /proc/modules, or present in /sys/module. */
    static boolean loaded(SystemRoot root) {
        return root.lines("/proc/modules").stream().anyMatch(l -> l.startsWith(MODULE + " "))
                || Files.isDirectory(root.path("/sys/module/" + MODULE));
    }

    /** The module file under {@code modules}, where distributions put it, else wherever modules.dep says. */
    private static Optional<String> moduleFile(SystemRoot root, String modules) {
        for (String suffix : COMPRESSIONS) {
            String candidate = modules + "/" + MODULE_PATH + suffix;
            if (Files.isRegularFile(root.path(candidate))) {
                return Optional.of(candidate);
            }
        }
        for (String dep : root.lines(modules + "/modules.dep")) {
            int colon = dep.indexOf(':');
            String path = colon < 0 ? dep : dep.substring(0, colon);
            for (String suffix : COMPRESSIONS) {
                if (path.endsWith("/tipc.ko" + suffix) && Files.isRegularFile(root.path(modules + "/" + path))) {
                    return Optional.of(modules + "/" + path);
                }
            }
        }
        return Optional.empty();
    }

    private static String describe(List<ModprobeConfig.Line> lines) {
        return lines.stream().map(ModprobeConfig.Line::toString).collect(Collectors.joining(" and "));
    }

    private static String unblockFix(List<ModprobeConfig.Line> blocking) {
        return "TIPC is blocked on purpose: if your security officer accepts TIPC on these nodes as an operational"
                + " requirement (document it, as the STIGs allow), delete or comment out "
                + blocking.stream().map(ModprobeConfig.Line::where).collect(Collectors.joining(", "))
                + " and run modprobe tipc; otherwise leave it, and this node's shuffle stays on HTTP/TCP";
    }
}
