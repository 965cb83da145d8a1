package io.hadooptipc.hdfs.affinity;

/** The DataNode-side keys of writer-thread core affinity; defaults in the shipped XML. */
public final class AffinitySettings {
    public static final String PREFIX = "hadooptipc.hdfs.affinity.";
    public static final String ENABLED = PREFIX + "enabled";
    public static final String VOLUME_CHOOSING_POLICY = PREFIX + "volume-choosing-policy";
    public static final String NIC = PREFIX + "nic";
    public static final String LOAD_SAMPLE_INTERVAL_MS = PREFIX + "load-sample-interval-ms";

    private AffinitySettings() {
    }
}
