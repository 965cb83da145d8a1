package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.util.List;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.VolumeChoosingPolicy;
import org.apache.hadoop.util.ReflectionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hadooptipc.hdfs.Settings;

/**
 * A volume choosing policy ({@code dfs.datanode.fsdataset.volume.choosing.policy}) that
 * binds the calling thread to a CPU chosen by {@link CoreAffinityManager} and then lets the
 * configured policy choose the volume. The DataNode asks for a volume on the writer thread
 * for each new replica, before any data arrives: the one hook stock Hadoop offers there.
 */
public class AffinityVolumeChoosingPolicy<V extends FsVolumeSpi> implements VolumeChoosingPolicy<V>, Configurable {
    private static final Logger LOG = LoggerFactory.getLogger(AffinityVolumeChoosingPolicy.class);

    private Configuration conf;
    private VolumeChoosingPolicy<V> volumes;
    /** Null when affinity is off: volume choice only. */
    private volatile CoreAffinityManager affinity;

    @Override
    @SuppressWarnings("unchecked")
    public void setConf(Configuration conf) {
        this.conf = conf;
        Configuration c = Settings.withDefaults(conf);
        Class<?> policy = c.getClass(AffinitySettings.VOLUME_CHOOSING_POLICY, null, VolumeChoosingPolicy.class);
        if (policy == null || AffinityVolumeChoosingPolicy.class.isAssignableFrom(policy)) {
            throw Settings.bad(AffinitySettings.VOLUME_CHOOSING_POLICY, c.get(AffinitySettings.VOLUME_CHOOSING_POLICY),
                    "a VolumeChoosingPolicy other than this one, e.g. RoundRobinVolumeChoosingPolicy");
        }
        volumes = (VolumeChoosingPolicy<V>) ReflectionUtils.newInstance(policy, conf);
        affinity = ProcessAffinity.manager(conf).orElse(null);
    }

    @Override
    public Configuration getConf() {
        return conf;
    }

    @Override
    public V chooseVolume(List<V> candidates, long replicaSize, String storageId) throws IOException {
        CoreAffinityManager m = affinity;
        if (m != null) {
            try {
                m.pinCurrentThread();
            } catch (RuntimeException e) {
                affinity = null;
                LOG.warn("Core affinity for DataNode writer threads is off from now on: binding a writer failed ({})",
                        e.toString());
            }
        }
        return volumes.chooseVolume(candidates, replicaSize, storageId);
    }
}
