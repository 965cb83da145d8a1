package io.hadooptipc.hdfs.read;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import org.apache.hadoop.fs.StorageType;

/**
 * Ranks the replicas of one block by the throughput a reader can expect from each:
 * the slower of the replica's device and the network path to it. Stock HDFS ranks by
 * network distance alone, so a local DISK replica beats a remote SSD one even when the
 * network is faster than the disk; here the remote SSD wins exactly when its expected
 * throughput is higher.
 *
 * <p>Replicas with the same expected throughput are ranked by distance, as stock HDFS
 * does, so the model never moves data further without a speed gain. What remains tied
 * is left to the caller (stock HDFS shuffles ties and applies {@code considerLoad}).
 */
public final class ReadCostModel {
    private final EnumMap<StorageType, Double> storageMbps;
    /** Index: network distance; distances past the end cost like the last entry. */
    private final double[] networkMbpsByDistance;
    private final EnumSet<StorageType> orderedTypes;

    /**
     * @param storageMbps expected MB/s of one reader per storage type; every ordered type needs one
     * @param networkMbps expected MB/s per network distance (0 local, 2 same rack, 4 off rack,
     *     ...); distance 0 is required, a missing distance costs like the next smaller one given
     * @param orderedTypes the storage types the model ranks; a block with a replica on any other
     *     type, or on a single type, keeps the stock order
     */
    public ReadCostModel(Map<StorageType, Double> storageMbps, Map<Integer, Double> networkMbps,
            Set<StorageType> orderedTypes) {
        if (orderedTypes.isEmpty()) {
            throw new IllegalArgumentException("no storage types to order");
        }
        for (StorageType t : orderedTypes) {
            if (!storageMbps.containsKey(t)) {
                throw new IllegalArgumentException("no expected MB/s for storage type " + t);
            }
        }
        if (!networkMbps.containsKey(0)) {
            throw new IllegalArgumentException("no expected MB/s for network distance 0 (local)");
        }
        this.storageMbps = new EnumMap<>(storageMbps);
        this.orderedTypes = EnumSet.copyOf(orderedTypes);
        TreeMap<Integer, Double> byDistance = new TreeMap<>(networkMbps);
        this.networkMbpsByDistance = new double[byDistance.lastKey() + 1];
        for (int d = 0; d < networkMbpsByDistance.length; d++) {
            networkMbpsByDistance[d] = byDistance.floorEntry(d).getValue();
        }
    }

    /** Expected MB/s of reading a replica on {@code type} at network distance {@code distance}. */
    public double expectedMbps(StorageType type, int distance) {
        int d = Math.min(distance, networkMbpsByDistance.length - 1);
        return Math.min(storageMbps.get(type), networkMbpsByDistance[d]);
    }

    /**
     * Whether the model ranks a block with replicas on these types: on two or more types,
     * all of them ordered ones. Otherwise the storage speed cannot change the stock order
     * or the operator left the type out.
     */
    public boolean ranks(StorageType[] types, int length) {
        StorageType first = null;
        boolean mixed = false;
        for (int i = 0; i < length; i++) {
            StorageType t = types[i];
            if (t == null || !orderedTypes.contains(t)) {
                return false;
            }
            if (first == null) {
                first = t;
            } else if (t != first) {
                mixed = true;
            }
        }
        return mixed;
    }

    /**
     * Groups replicas of equal expected throughput and distance, fastest group first.
     * Every replica must be on an ordered type (see {@link #ranks}).
     */
    public <R> List<List<R>> rank(List<R> replicas, Function<? super R, StorageType> storageType,
            ToIntFunction<? super R> distance) {
        int n = replicas.size();
        Ranked<?>[] ranked = new Ranked<?>[n];
        for (int i = 0; i < n; i++) {
            R r = replicas.get(i);
            int d = distance.applyAsInt(r);
            ranked[i] = new Ranked<>(r, expectedMbps(storageType.apply(r), d), d);
        }
        Arrays.sort(ranked, Ranked.FASTEST_FIRST);
        List<List<R>> groups = new ArrayList<>(n);
        Ranked<?> previous = null;
        for (Ranked<?> current : ranked) {
            if (previous == null || Ranked.FASTEST_FIRST.compare(previous, current) != 0) {
                groups.add(new ArrayList<>(1));
            }
            @SuppressWarnings("unchecked")
            R replica = (R) current.replica;
            groups.get(groups.size() - 1).add(replica);
            previous = current;
        }
        return groups;
    }

    private static final class Ranked<R> {
        private final R replica;
        private final double mbps;
        private final int distance;

        private Ranked(R replica, double mbps, int distance) {
            this.replica = replica;
            this.mbps = mbps;
            this.distance = distance;
        }

        static final Comparator<Ranked<?>> FASTEST_FIRST = Comparator
                .comparingDouble((Ranked<?> r) -> -r.mbps)
                .thenComparingInt(r -> r.distance);

        public R replica() {
            return replica;
        }

        public double mbps() {
            return mbps;
        }

        public int distance() {
            return distance;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Ranked)) {
                return false;
            }
            Ranked<?> that = (Ranked<?>) o;
            return Objects.equals(replica, that.replica) && Double.compare(mbps, that.mbps) == 0
                    && distance == that.distance;
        }

        @Override
        public int hashCode() {
            return Objects.hash(replica, mbps, distance);
        }

        @Override
        public String toString() {
            return "Ranked[replica=" + replica + ", mbps=" + mbps + ", distance=" + distance + "]";
        }
    }
}
