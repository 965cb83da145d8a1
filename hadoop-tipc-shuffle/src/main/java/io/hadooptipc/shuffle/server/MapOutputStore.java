package io.hadooptipc.shuffle.server;

import java.io.File;
import java.io.IOException;

/** Where a map task's output for one reduce partition lies on this node. */
public interface MapOutputStore {

    /** One partition of a map's output file: the byte range the reducer gets. */
    record Partition(File file, long offset, long length, long rawLength) {
    }

    Partition locate(String jobId, String user, String mapId, int reduce) throws IOException;
}
