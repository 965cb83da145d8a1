package io.hadooptipc.hdfs.report;

import java.util.ArrayList;
import java.util.List;

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
public record PlacementCheck(List<StorageType> expected, List<StorageType> missing, List<StorageType> excess) {

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
}
