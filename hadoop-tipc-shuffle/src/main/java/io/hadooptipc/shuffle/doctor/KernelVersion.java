package io.hadooptipc.shuffle.doctor;

import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An upstream kernel version, major.minor.sublevel (a mainline release has sublevel 0). */
record KernelVersion(int major, int minor, int sublevel) implements Comparable<KernelVersion> {
    private static final Pattern LEADING = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");
    private static final Comparator<KernelVersion> ORDER = Comparator.comparingInt(KernelVersion::major)
            .thenComparingInt(KernelVersion::minor).thenComparingInt(KernelVersion::sublevel);

    /** The version a string such as {@code 6.1.192-2} or {@code 5.14.0-427.el9.x86_64} starts with. */
    static Optional<KernelVersion> parse(String s) {
        Matcher m = LEADING.matcher(s.strip());
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new KernelVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
    }

    static KernelVersion of(String s) {
        return parse(s).orElseThrow(() -> new IllegalArgumentException("not a kernel version: " + s));
    }

    boolean sameBranch(KernelVersion other) {
        return major == other.major && minor == other.minor;
    }

    @Override
    public int compareTo(KernelVersion o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return major + "." + minor + (sublevel == 0 ? "" : "." + sublevel);
    }
}
