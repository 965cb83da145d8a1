package io.hadooptipc.shuffle.doctor;

import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An upstream kernel version, major.minor.sublevel (a mainline release has sublevel 0). */
final class KernelVersion implements Comparable<KernelVersion> {
    private final int major;
    private final int minor;
    private final int sublevel;

    KernelVersion(int major, int minor, int sublevel) {
        this.major = major;
        this.minor = minor;
        this.sublevel = sublevel;
    }

    private static final Pattern LEADING = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");
    private static final Comparator<KernelVersion> ORDER = Comparator.comparingInt(KernelVersion::major)
            .thenComparingInt(KernelVersion::minor).thenComparingInt(KernelVersion::sublevel);

    /** The version a string such as {@code 6.1.192-2} or {@code 5.14.0-427.el9.x86_64} starts with. */
    static Optional<KernelVersion> parse(String s) {
        Matcher m = LEADING.matcher(s.trim());
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

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    public int sublevel() {
        return sublevel;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KernelVersion)) {
            return false;
        }
        KernelVersion that = (KernelVersion) o;
        return major == that.major && minor == that.minor && sublevel == that.sublevel;
    }

    @Override
    public int hashCode() {
        return Objects.hash(major, minor, sublevel);
    }
}
