package io.hadooptipc.shuffle.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The file system the doctor reads the kernel's and the distribution's state from
 * ({@code /proc}, {@code /sys}, {@code /lib/modules}, {@code /etc}): {@code /} on a node,
 * a tree of fixture files in tests.
 */
public record SystemRoot(Path root) {
    public static final SystemRoot HOST = new SystemRoot(Path.of("/"));

    /** {@code absolute} (e.g. {@code /proc/modules}) under this root. */
    Path path(String absolute) {
        return root.resolve(absolute.substring(1));
    }

    /** The file's text, or empty when it does not exist or cannot be read. */
    Optional<String> read(String absolute) {
        try {
            return Optional.of(Files.readString(path(absolute), StandardCharsets.UTF_8));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    List<String> lines(String absolute) {
        return read(absolute).map(s -> s.lines().toList()).orElse(List.of());
    }

    /** What {@code uname -r} says, or empty when /proc is not there. */
    Optional<String> kernelRelease() {
        return read("/proc/sys/kernel/osrelease").map(String::strip).filter(s -> !s.isEmpty());
    }

    /** /etc/os-release (else /usr/lib/os-release) as keys and unquoted values. */
    Map<String, String> osRelease() {
        Optional<String> text = read("/etc/os-release").or(() -> read("/usr/lib/os-release"));
        Map<String, String> fields = new HashMap<>();
        text.ifPresent(t -> t.lines().forEach(line -> {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#")) {
                String value = line.substring(eq + 1).strip();
                if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'"))) {
                    value = value.substring(1, value.length() - 1);
                }
                fields.put(line.substring(0, eq).strip(), value);
            }
        }));
        return fields;
    }
}
