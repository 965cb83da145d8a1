package io.hadooptipc.shuffle.server;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.localizer.ContainerLocalizer;

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
 * IndexCache ({@link MRJobConfig#SHUFFLE_INDEX_CACHE}).
 * <p>
 * Stock's own path resolution and IndexCache are package-private in
 * {@code org.apache.hadoop.mapred}, and a bridge there cannot reach them from the aux
 * service's isolated class path (its loader takes that package from the NodeManager
 * only), so this is a copy: {@code LocalMapOutputStoreTest} pins it to stock's answers.
 */
public final class LocalMapOutputStore implements MapOutputStore {

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
            return (long) index.size() * MapTask.MAP_OUTPUT_INDEX_RECORD_LENGTH;
        }
    }

    public LocalMapOutputStore(LocalDirs dirs, JobConf conf) {
        this.dirs = dirs;
        this.conf = conf;
        this.cacheBytes = conf.getInt(MRJobConfig.SHUFFLE_INDEX_CACHE, 10) * 1024L * 1024L;
    }

    @Override
    public Partition locate(String jobId, String user, String mapId, int reduce) throws IOException {
        Cached c = cached(jobId, user, mapId);
        if (reduce >= c.index().size()) {
            // IndexCache's words: the answer reads the same over TIPC as over HTTP
            throw new IOException("Invalid request  Map Id = " + mapId + " Reducer = " + reduce
                    + " Index Info Length = " + c.index().size());
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
        Cached loaded = new Cached(jobId, new File(data.toUri().getPath()), readIndex(index, user));
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

    private SpillRecord readIndex(Path index, String user) throws IOException {
        try {
            return new SpillRecord(index, conf, user);
        } catch (IOException e) {
            throw new IOException("Error Reading IndexFile", e); // as IndexCache reports it
        }
    }

    /** The stock NodeManager layout of a map attempt's output directory. */
    private static String attemptDir(String jobId, String user, String mapId) {
        JobID job = JobID.forName(jobId);
        ApplicationId app = ApplicationId.newInstance(Long.parseLong(job.getJtIdentifier()), job.getId());
        return ContainerLocalizer.USERCACHE + "/" + user + "/" + ContainerLocalizer.APPCACHE + "/" + app + "/output/"
                + mapId;
    }
}
