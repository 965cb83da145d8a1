package io.hadooptipc.shuffle.doctor;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The file system the doctor reads the kernel's and the distribution's state from
 * ({@code /proc}, {@code /sys}, {@code /lib/modules}, {@code /etc}): {@code /} on a node,
 * a tree of fixture files in tests.
 */
public final class SystemRoot {
    private final Path root;

    public SystemRoot(Path root) {
        this.root = root;
    }

    public static final SystemRoot HOST = new SystemRoot(Paths.get("/"));

    /** {@code absolute} (e.g. {@code /proc/modules}) under this root. */
    Path path(String absolute) {
        return root.resolve(absolute.substring(1));
    }

    /** The file's text, or empty when it does not exist or cannot be read. */
    Optional<String> read(String absolute) {
        try {
            return Optional.of(new String(Files.readAllBytes(path(absolute)), StandardCharsets.UTF_8));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    List<String> lines(String absolute) {
        return read(absolute).map(SystemRoot::linesOf).orElse(Collections.<String>emptyList());
    }

    /** {@code text}'s lines, without their terminators (\n, \r or \r\n). */
    static List<String> linesOf(String text) {
        return new BufferedReader(new StringReader(text)).lines().collect(Collectors.toList());
    }

    /** What {@code uname -r} says, or empty when /proc is not there. */
    Optional<String> kernelRelease() {
        return read("/proc/sys/kernel/osrelease").map(String::trim).filter(s -> !s.isEmpty());
    }

    /** /etc/os-release (else /usr/lib/os-release) as keys and unquoted values. */
    Map<String, String> osRelease() {
        Optional<String> etc = read("/etc/os-release");
        Optional<String> text = etc.isPresent() ? etc : read("/usr/lib/os-release");
        Map<String, String> fields = new HashMap<>();
        text.ifPresent(t -> linesOf(t).forEach(line -> {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#")) {
                String value = line.substring(eq + 1).trim();
                if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'"))) {
                    value = value.substring(1, value.length() - 1);
                }
                fields.put(line.substring(0, eq).trim(), value);
            }
        }));
        return fields;
    }

    public Path root() {
        return root;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SystemRoot)) {
            return false;
        }
        SystemRoot that = (SystemRoot) o;
        return Objects.equals(root, that.root);
    }

    @Override
    public int hashCode() {
        return Objects.hash(root);
    }

    @Override
    public String toString() {
        return "SystemRoot[root=" + root + "]";
    }
}
