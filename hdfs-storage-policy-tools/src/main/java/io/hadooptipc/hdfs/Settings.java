package io.hadooptipc.hdfs;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;

/**
 * Reads this module's configuration values, failing with a message that names the key,
 * the bad value and what was expected: an operator sees these at NameNode or DataNode
 * start-up, not in a stack trace deep inside a block read.
 */
public final class Settings {
    /** The defaults of every key, shipped in the jar. */
    public static final String DEFAULT_RESOURCE = "hdfs-storage-policy-tools-default.xml";

    private Settings() {
    }

    /** A configuration with this module's defaults underneath {@code conf}'s own values. */
    public static Configuration withDefaults(Configuration conf) {
        Configuration merged = new Configuration(false);
        merged.addResource(DEFAULT_RESOURCE);
        for (Map.Entry<String, String> e : conf) {
            merged.set(e.getKey(), e.getValue());
        }
        return merged;
    }

    public static boolean bool(Configuration conf, String key) {
        String v = required(conf, key).toLowerCase(Locale.ROOT);
        switch (v) {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw bad(key, v, "true or false");
        }
    }

    public static long positiveLong(Configuration conf, String key) {
        String v = required(conf, key);
        try {
            long n = Long.parseLong(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below with the key's name
        }
        throw bad(key, v, "a whole number above 0");
    }

    /** A comma-separated list of storage type names, e.g. {@code SSD,DISK}. */
    public static EnumSet<StorageType> storageTypes(Configuration conf, String key) {
        EnumSet<StorageType> types = EnumSet.noneOf(StorageType.class);
        for (String name : conf.getTrimmedStrings(key)) {
            types.add(storageType(key, name));
        }
        if (types.isEmpty()) {
            throw bad(key, conf.get(key), "one or more of " + EnumSet.allOf(StorageType.class));
        }
        return types;
    }

    /** {@code NAME=MBPS,...} with a storage type name on the left. */
    public static Map<StorageType, Double> mbpsByStorageType(Configuration conf, String key) {
        Map<StorageType, Double> result = new LinkedHashMap<>();
        pairs(conf, key).forEach((name, mbps) -> result.put(storageType(key, name), mbps));
        return result;
    }

    /** {@code DISTANCE=MBPS,...} with a network distance (0 local, 2 same rack, ...) on the left. */
    public static Map<Integer, Double> mbpsByDistance(Configuration conf, String key) {
        Map<Integer, Double> result = new LinkedHashMap<>();
        pairs(conf, key).forEach((distance, mbps) -> {
            try {
                int d = Integer.parseInt(distance);
                if (d >= 0) {
                    result.put(d, mbps);
                    return;
                }
            } catch (NumberFormatException ignored) {
                // reported below with the key's name
            }
            throw bad(key, distance, "a network distance: a whole number from 0");
        });
        return result;
    }

    private static Map<String, Double> pairs(Configuration conf, String key) {
        Map<String, Double> result = new LinkedHashMap<>();
        for (String pair : conf.getTrimmedStrings(key)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw bad(key, pair, "NAME=MBPS");
            }
            String name = pair.substring(0, eq).trim();
            String number = pair.substring(eq + 1).trim();
            double mbps;
            try {
                mbps = Double.parseDouble(number);
            } catch (NumberFormatException e) {
                mbps = Double.NaN;
            }
            if (!(mbps > 0) || Double.isInfinite(mbps)) {
                throw bad(key, pair, "a throughput in MB/s above 0 after '='");
            }
            if (result.put(name, mbps) != null) {
                throw bad(key, pair, "each name once");
            }
        }
        return result;
    }

    private static StorageType storageType(String key, String name) {
        try {
            return StorageType.valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw bad(key, name, "a storage type, one of " + EnumSet.allOf(StorageType.class));
        }
    }

    private static String required(Configuration conf, String key) {
        String v = conf.getTrimmed(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException(key + " is not set (its default is in " + DEFAULT_RESOURCE + ")");
        }
        return v;
    }

    public static IllegalArgumentException bad(String key, String value, String expected) {
        return new IllegalArgumentException(key + ": '" + value + "' is not valid; expected " + expected);
    }
}
