package io.hadooptipc.shuffle.doctor;

/**
 * One finding of the doctor: what was checked, how it came out, what was found and,
 * when it is not OK, how to fix it (empty when there is nothing to do).
 */
public record Check(String name, Status status, String finding, String fix) {

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
}
