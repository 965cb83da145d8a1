package io.hadooptipc.shuffle.doctor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The doctor's verdict: every check in order, and whether this node is ready to carry
 * the TIPC shuffle (no check failed), as text for people or JSON for scripts.
 */
public final class DoctorReport {
    private final List<Check> checks;

    public DoctorReport(List<Check> checks) {
        checks = Collections.unmodifiableList(new ArrayList<>(checks));
        this.checks = checks;
    }

    public boolean ready() {
        return checks.stream().noneMatch(c -> c.status() == Check.Status.FAIL);
    }

    /** One line per check, then the verdict. */
    public String text() {
        StringBuilder out = new StringBuilder();
        for (Check c : checks) {
            out.append(String.format("%-4s %-14s %s", c.status(), c.name(), c.finding()));
            if (!c.fix().isEmpty()) {
                out.append(" | fix: ").append(c.fix());
            }
            out.append('\n');
        }
        long failed = checks.stream().filter(c -> c.status() == Check.Status.FAIL).count();
        out.append(ready() ? "ready: this node can carry the TIPC shuffle\n"
                : "not ready: " + failed + " check(s) failed\n");
        return out.toString();
    }

    /** {@code {"ready":…,"checks":[{"name":…,"status":…,"finding":…,"fix":…},…]}} */
    public String json() {
        StringBuilder out = new StringBuilder("{\"ready\":").append(ready()).append(",\"checks\":[");
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("{\"name\":").append(quote(c.name()))
                    .append(",\"status\":").append(quote(c.status().name()))
                    .append(",\"finding\":").append(quote(c.finding()))
                    .append(",\"fix\":").append(quote(c.fix())).append('}');
        }
        return out.append("]}\n").toString();
    }

    static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"':
                    q.append("\\\"");
                    break;
                case '\\':
                    q.append("\\\\");
                    break;
                case '\n':
                    q.append("\\n");
                    break;
                case '\r':
                    q.append("\\r");
                    break;
                case '\t':
                    q.append("\\t");
                    break;
                default:
                    if (ch < 0x20) {
                        q.append(String.format("\\u%04x", (int) ch));
                    } else {
                        q.append(ch);
                    }
            }
        }
        return q.append('"').toString();
    }

    public List<Check> checks() {
        return checks;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DoctorReport)) {
            return false;
        }
        DoctorReport that = (DoctorReport) o;
        return Objects.equals(checks, that.checks);
    }

    @Override
    public int hashCode() {
        return Objects.hash(checks);
    }

    @Override
    public String toString() {
        return "DoctorReport[checks=" + checks + "]";
    }
}
