package io.hadooptipc.shuffle.server;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalDirAllocator;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

import java.io.IOException;

/**
 * The NodeManager's local directories ({@code yarn.nodemanager.local-dirs}), for a shuffle
 * handler the NodeManager never handed its own path handler. That is every handler loaded on
 * the aux service's isolated class path ({@code yarn.nodemanager.aux-services.NAME.classpath}):
 * Hadoop's {@code AuxiliaryServiceWithCustomClassLoader} keeps the handler it is given instead
 * of passing it to the service it wraps, so the stock HTTP path would fail on its first request
 * and ours could not start. Unlike the NodeManager's, this one does not skip directories its
 * disk health checker has marked bad: it searches them all, which costs a lookup, not a result.
 */
final class NodeManagerLocalDirs implements AuxiliaryLocalPathHandler {
    private final LocalDirAllocator dirs = new LocalDirAllocator(YarnConfiguration.NM_LOCAL_DIRS);
    private final Configuration conf;

    NodeManagerLocalDirs(Configuration conf) {
        this.conf = conf;
    }

    @Override
    public Path getLocalPathForRead(String path) throws IOException {
        return dirs.getLocalPathToRead(path, conf);
    }

    @Override
    public Path getLocalPathForWrite(String path) throws IOException {
        return dirs.getLocalPathForWrite(path, conf);
    }

    @Override
    public Path getLocalPathForWrite(String path, long size) throws IOException {
        return dirs.getLocalPathForWrite(path, size, conf);
    }

    @Override
    public Iterable<Path> getAllLocalPathsForRead(String path) throws IOException {
        return dirs.getAllLocalPathsToRead(path, conf);
    }
}
