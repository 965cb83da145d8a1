package io.hadooptipc.hdfs.affinity;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.ServicePlugin;

/**
 * A DataNode plugin ({@code dfs.datanode.plugins}) hosting the collectors behind writer
 * core affinity: it reads the CPU and NIC topology at DataNode start and samples per-CPU
 * load from {@code /proc/stat} while the DataNode runs.
 */
public class AffinityServicePlugin implements ServicePlugin {
    private boolean sampling;

    @Override
    public synchronized void start(Object service) {
        Configuration conf = ((DataNode) service).getConf();
        if (ProcessAffinity.manager(conf).isPresent()) {
            ProcessAffinity.startSampling(conf);
            sampling = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (sampling) {
            ProcessAffinity.stopSampling();
            sampling = false;
        }
    }

    @Override
    public void close() {
        stop();
    }
}
