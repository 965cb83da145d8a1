package io.hadooptipc.bench.seeds;

import io.hadooptipc.bench.common.Stats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The seed's model of parallel connections sharing a bottleneck (seed 004, eq. 2 and 4): every
 * connection gets an equal part of the link, so a new group of A connections beside V existing
 * ones gets BNA = B·A/(V+A) of the link's bandwidth B, and the existing ones keep IB = B·V/(V+A).
 * And the measurements it is checked against: rounds of two groups sending at once, each round
 * with a run of the existing group alone that measures B.
 */
public final class BandwidthShare {
    private BandwidthShare() {
    }

    /** The part of the link that {@code newConnections} get beside {@code existing}: A/(V+A). */
    public static double modelShare(int newConnections, int existing) {
        return (double) newConnections / (existing + newConnections);
    }

    /** BNA, eq. 2: the bandwidth the new connections get. */
    public static double bandwidthForNewAllocation(double linkBandwidth, int newConnections, int existing) {
        return linkBandwidth * modelShare(newConnections, existing);
    }

    /** IB, eq. 4: the bandwidth the existing connections keep. */
    public static double interferedBandwidth(double linkBandwidth, int newConnections, int existing) {
        return linkBandwidth * modelShare(existing, newConnections);
    }

    /**
     * One measured run: {@code aConnections} existing connections and {@code bConnections} new
     * ones (0: the existing group alone, which measures the link) sending at once over a link
     * limited to {@code limitMbit}; each group's rate in Mbit/s over the steady window.
     */
    public record Run(String where, String transport, int round, double limitMbit, int aConnections,
            int bConnections, double aMbit, double bMbit) {
        static final String HEADER = "where,transport,round,limit_mbit,a_connections,b_connections,a_mbit,b_mbit";

        static Run parse(String line) {
            String[] f = line.split(",");
            return new Run(f[0], f[1], Integer.parseInt(f[2]), Double.parseDouble(f[3]), Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]));
        }

        String toCsv() {
            return String.format(Locale.ROOT, "%s,%s,%d,%.1f,%d,%d,%.4f,%.4f", where, transport, round, limitMbit,
                    aConnections, bConnections, aMbit, bMbit);
        }

        double totalMbit() {
            return aMbit + bMbit;
        }

        boolean alone() {
            return bConnections == 0;
        }
    }

    /**
     * One point of the comparison: the medians over rounds of a setting (where, transport, B's
     * connections). Errors are measured minus model; each round's prediction uses the link
     * bandwidth measured in that round.
     */
    public record Point(String where, String transport, double limitMbit, int aConnections, int bConnections,
            int rounds, double capacityMbit, double totalMbit, double aMbit, double bMbit, double share,
            double bnaMbit, double errorMbit, double relativeError, double ibMbit, double aErrorMbit) {
        static final String HEADER = "where,transport,limit_mbit,a_connections,b_connections,rounds,capacity_mbit,"
                + "total_mbit,utilisation,a_mbit,b_mbit,share_b,model_share_b,share_error,bna_mbit,error_mbit,"
                + "relative_error,ib_mbit,a_error_mbit";

        double modelShare() {
            return BandwidthShare.modelShare(bConnections, aConnections);
        }

        double shareError() {
            return share - modelShare();
        }

        /** The achieved total over the limiter's rate: near 1 when the limiter is the bottleneck. */
        double utilisation() {
            return totalMbit / limitMbit;
        }

        String series() {
            return transport.toUpperCase(Locale.ROOT) + " (" + where + ")";
        }

        String toCsv() {
            return String.format(Locale.ROOT,
                    "%s,%s,%.1f,%d,%d,%d,%.3f,%.3f,%.4f,%.3f,%.3f,%.5f,%.5f,%.5f,%.3f,%.3f,%.4f,%.3f,%.3f", where,
                    transport, limitMbit, aConnections, bConnections, rounds, capacityMbit, totalMbit, utilisation(),
                    aMbit, bMbit, share, modelShare(), shareError(), bnaMbit, errorMbit, relativeError, ibMbit,
                    aErrorMbit);
        }
    }

    /** Pairs each two-group run with its round's run of group A alone and takes medians over rounds. */
    public static List<Point> points(List<Run> runs) {
        Map<String, Run> alone = runs.stream().filter(Run::alone)
                .collect(Collectors.toMap(r -> r.where() + '/' + r.transport() + '/' + r.round(), r -> r));
        Map<String, List<Run>> settings = runs.stream().filter(r -> !r.alone())
                .collect(Collectors.groupingBy(r -> r.where() + '/' + r.transport() + '/' + r.bConnections(),
                        TreeMap::new, Collectors.toList()));
        List<Point> points = new ArrayList<>();
        for (List<Run> rounds : settings.values()) {
            List<Paired> paired = rounds.stream().map(r -> {
                Run a = alone.get(r.where() + '/' + r.transport() + '/' + r.round());
                if (a == null) {
                    throw new IllegalArgumentException("no run of group A alone in round " + r.round() + " for " + r);
                }
                return new Paired(r, a.totalMbit());
            }).toList();
            Run first = rounds.get(0);
            points.add(new Point(first.where(), first.transport(), first.limitMbit(), first.aConnections(),
                    first.bConnections(), rounds.size(), Stats.median(paired, p -> p.capacity),
                    Stats.median(paired, p -> p.run.totalMbit()), Stats.median(paired, p -> p.run.aMbit()),
                    Stats.median(paired, p -> p.run.bMbit()), Stats.median(paired, p -> p.run.bMbit() / p.run.totalMbit()),
                    Stats.median(paired, Paired::bna), Stats.median(paired, p -> p.run.bMbit() - p.bna()),
                    Stats.median(paired, p -> p.run.bMbit() / p.bna() - 1), Stats.median(paired, Paired::ib),
                    Stats.median(paired, p -> p.run.aMbit() - p.ib())));
        }
        points.sort(Comparator.comparing(Point::where).thenComparing(Point::transport)
                .thenComparingInt(Point::bConnections));
        return points;
    }

    private record Paired(Run run, double capacity) {
        double bna() {
            return bandwidthForNewAllocation(capacity, run.bConnections(), run.aConnections());
        }

        double ib() {
            return interferedBandwidth(capacity, run.bConnections(), run.aConnections());
        }
    }
}
