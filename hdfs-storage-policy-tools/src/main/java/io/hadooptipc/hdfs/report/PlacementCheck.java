package io.hadooptipc.hdfs.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;

/**
 * Whether a block's replicas lie on the storage types its policy asks for at its
 * replication, e.g. ONE_SSD at 3: one SSD and two DISK.
 *
 * @param expected the types the policy asks for
 * @param missing asked for but not present
 * @param excess present but not asked for
 */
public final class PlacementCheck {
    private final List<StorageType> expected;
    private final List<StorageType> missing;
    private final List<StorageType> excess;

    public PlacementCheck(List<StorageType> expected, List<StorageType> missing, List<StorageType> excess) {
        this.expected = expected;
        this.missing = missing;
        this.excess = excess;
    }

    public static PlacementCheck of(BlockStoragePolicy policy, short replication, StorageType[] actual) {
        List<StorageType> expected = policy.chooseStorageTypes(replication);
        List<StorageType> missing = new ArrayList<>(expected);
        List<StorageType> excess = new ArrayList<>();
        for (StorageType t : actual) {
            if (!missing.remove(t)) {
                excess.add(t);
            }
        }
        return new PlacementCheck(expected, missing, excess);
    }

    public boolean satisfied() {
        return missing.isEmpty() && excess.isEmpty();
    }

    public List<StorageType> expected() {
        return expected;
    }

    public List<StorageType> missing() {
        return missing;
    }

    public List<StorageType> excess() {
        return excess;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PlacementCheck)) {
            return false;
        }
        PlacementCheck that = (PlacementCheck) o;
        return Objects.equals(expected, that.expected) && Objects.equals(missing, that.missing)
                && Objects.equals(excess, that.excess);
    }

    @Override
    public int hashCode() {
        return Objects.hash(expected, missing, excess);
    }

    @Override
    public String toString() {
        return "PlacementCheck[expected=" + expected + ", missing=" + missing + ", excess=" + excess + "]";
    }
}
