package io.hadooptipc.shuffle.doctor;

import java.util.Objects;

/**
 * One finding of the doctor: what was checked, how it came out, what was found and,
 * when it is not OK, how to fix it (empty when there is nothing to do).
 */
public final class Check {
    private final String name;
    private final Status status;
    private final String finding;
    private final String fix;

    public Check(String name, Status status, String finding, String fix) {
        this.name = name;
        this.status = status;
        this.finding = finding;
        this.fix = fix;
    }

    public enum Status {
        /** The node is fine in this respect. */
        OK,
        /** Not ready yet, but not a fault either (e.g. names a NodeManager not yet started will publish). */
        WARN,
        /** The node cannot carry the TIPC shuffle until this is fixed. */
        FAIL,
        /** Not checked: an earlier check failed, or a tool the check needs is missing. */
        SKIP
    }

    public static Check ok(String name, String finding) {
        return new Check(name, Status.OK, finding, "");
    }

    public static Check skip(String name, String why) {
        return new Check(name, Status.SKIP, why, "");
    }

    public String name() {
        return name;
    }

    public Status status() {
        return status;
    }

    public String finding() {
        return finding;
    }

    public String fix() {
        return fix;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Check)) {
            return false;
        }
        Check that = (Check) o;
        return Objects.equals(name, that.name) && Objects.equals(status, that.status)
                && Objects.equals(finding, that.finding) && Objects.equals(fix, that.fix);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, status, finding, fix);
    }

    @Override
    public String toString() {
        return "Check[name=" + name + ", status=" + status + ", finding=" + finding + ", fix=" + fix + "]";
    }
}
