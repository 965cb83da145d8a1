package io.hadooptipc.hdfs.read;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;

import io.hadooptipc.hdfs.Settings;

/** The NameNode-side keys of the storage-aware read order; defaults in the shipped XML. */
public final class ReadOrderSettings {
    public static final String PREFIX = "hadooptipc.hdfs.read-order.";
    public static final String ENABLED = PREFIX + "enabled";
    public static final String STORAGE_TYPES = PREFIX + "storage-types";
    public static final String STORAGE_MBPS = PREFIX + "storage-mbps";
    public static final String NETWORK_MBPS = PREFIX + "network-mbps";

    private ReadOrderSettings() {
    }

    /** The cost model {@code conf} asks for, or empty when the read order is switched off. */
    public static Optional<ReadCostModel> costModel(Configuration conf) {
        Configuration c = Settings.withDefaults(conf);
        if (!Settings.bool(c, ENABLED)) {
            return Optional.empty();
        }
        Map<StorageType, Double> storageMbps = Settings.mbpsByStorageType(c, STORAGE_MBPS);
        Map<Integer, Double> networkMbps = Settings.mbpsByDistance(c, NETWORK_MBPS);
        Set<StorageType> orderedTypes = Settings.storageTypes(c, STORAGE_TYPES);
        try {
            return Optional.of(new ReadCostModel(storageMbps, networkMbps, orderedTypes));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(String.join(", ", STORAGE_TYPES, STORAGE_MBPS, NETWORK_MBPS)
                    + " do not fit together: " + e.getMessage(), e);
        }
    }
}
