package io.hadooptipc.shuffle.server;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.JobID;

import java.io.File;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Map outputs in the NodeManager's local directories, where the stock layout puts
 * them: {@code usercache/USER/appcache/APP/output/ATTEMPT/file.out} and its
 * {@code file.out.index}. Index files are read with the owner check of
 * {@link SpillRecord} and kept in an LRU cache bounded in bytes, like the stock
 * IndexCache ({@code mapreduce.tasktracker.indexcache.mb}).
 */
public final class LocalMapOutputStore implements MapOutputStore {
    // Three longs per partition: offset, raw length, part length.
    private static final int INDEX_RECORD_BYTES = 24;

    /** Resolves a path relative to the NodeManager's local directories, for reading. */
    @FunctionalInterface
    public interface LocalDirs {
        Path forRead(String relative) throws IOException;
    }

    private final LocalDirs dirs;
    private final JobConf conf;
    private final long cacheBytes;
    private final Map<String, Cached> cache = new LinkedHashMap<>(64, 0.75f, true);
    private long cachedBytes;

    private record Cached(String jobId, File data, SpillRecord index) {
        long bytes() {
            return (long) index.size() * INDEX_RECORD_BYTES;
        }
    }

    public LocalMapOutputStore(LocalDirs dirs, JobConf conf) {
        this.dirs = dirs;
        this.conf = conf;
        this.cacheBytes = conf.getInt("mapreduce.tasktracker.indexcache.mb", 10) * 1024L * 1024L;
    }

    @Override
    public Partition locate(String jobId, String user, String mapId, int reduce) throws IOException {
        Cached c = cached(jobId, user, mapId);
        if (reduce >= c.index().size()) {
            throw new IOException("map " + mapId + " has " + c.index().size() + " partitions, no reduce " + reduce);
        }
        IndexRecord r = c.index().getIndex(reduce);
        return new Partition(c.data(), r.startOffset, r.partLength, r.rawLength);
    }

    /** Forgets a finished job's indexes. */
    public synchronized void removeJob(String jobId) {
        for (Iterator<Cached> it = cache.values().iterator(); it.hasNext(); ) {
            Cached c = it.next();
            if (c.jobId().equals(jobId)) {
                cachedBytes -= c.bytes();
                it.remove();
            }
        }
    }

    private Cached cached(String jobId, String user, String mapId) throws IOException {
        synchronized (this) {
            Cached c = cache.get(mapId);
            if (c != null) {
                return c;
            }
        }
        if (user == null) {
            throw new IOException("no user known for job " + jobId);
        }
        String base = attemptDir(jobId, user, mapId);
        Path index = dirs.forRead(base + "/file.out.index");
        Path data = dirs.forRead(base + "/file.out");
        Cached loaded = new Cached(jobId, new File(data.toUri().getPath()), new SpillRecord(index, conf, user));
        synchronized (this) {
            if (cache.putIfAbsent(mapId, loaded) == null) {
                cachedBytes += loaded.bytes();
                for (Iterator<Cached> it = cache.values().iterator(); cachedBytes > cacheBytes && it.hasNext(); ) {
                    cachedBytes -= it.next().bytes();
                    it.remove();
                }
            }
        }
        return loaded;
    }

    /** The stock NodeManager layout of a map attempt's output directory. */
    static String attemptDir(String jobId, String user, String mapId) {
        JobID job = JobID.forName(jobId);
        String appId = String.format("application_%s_%04d", job.getJtIdentifier(), job.getId());
        return "usercache/" + user + "/appcache/" + appId + "/output/" + mapId;
    }
}
