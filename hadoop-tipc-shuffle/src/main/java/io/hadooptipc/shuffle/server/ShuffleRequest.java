package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A validated map-output request: {@code GET /mapOutput?job=J&reduce=R&map=M1,M2}
 * with the stock {@code name}/{@code version} and {@code UrlHash} headers. Checks follow
 * the stock handler (same status codes), and are stricter in one way: job and map ids
 * must be exactly what Hadoop itself would print, so no {@code ..} or path separator can
 * ever reach a file path.
 *
 * @param keepAliveAsked the reducer asked to keep the connection open: the stock {@code keepAlive=true}
 *                       parameter, or {@code Connection: keep-alive}, which our fetchers send over TIPC
 *                       (the stock handler ignores that header, which every {@code HttpURLConnection}
 *                       sends; only TIPC requests reach this parser)
 */
public record ShuffleRequest(String uri, String jobId, int reduce, List<String> mapIds,
                             boolean keepAliveAsked, String urlHash, String target) {

    public static ShuffleRequest parse(HttpHead head) throws ShuffleException {
        String[] start = head.startLine().split(" ", -1);
        if (start.length != 3 || !start[2].startsWith("HTTP/1.")) {
            throw new ShuffleException(400, "Malformed request line");
        }
        if (!start[0].equals("GET")) {
            throw new ShuffleException(405, "Method not allowed");
        }
        if (!ShuffleHeader.DEFAULT_HTTP_HEADER_NAME.equals(head.field(ShuffleHeader.HTTP_HEADER_NAME))
                || !ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION.equals(head.field(ShuffleHeader.HTTP_HEADER_VERSION))) {
            throw new ShuffleException(400, "Incompatible shuffle request version");
        }
        String uri = start[1];
        Map<String, List<String>> query = query(uri);
        List<String> jobs = query.get("job");
        List<String> reduces = query.get("reduce");
        List<String> maps = query.get("map");
        if (jobs == null || reduces == null || maps == null) {
            throw new ShuffleException(400, "Required param job, map and reduce");
        }
        if (jobs.size() != 1 || reduces.size() != 1) {
            throw new ShuffleException(400, "Too many job/reduce parameters");
        }
        int reduce;
        try {
            reduce = Integer.parseInt(reduces.get(0));
        } catch (NumberFormatException e) {
            throw new ShuffleException(400, "Bad reduce parameter");
        }
        if (reduce < 0) {
            throw new ShuffleException(400, "Bad reduce parameter");
        }
        String jobId = jobs.get(0);
        JobID job = canonicalJob(jobId);
        List<String> mapIds = new ArrayList<>();
        for (String list : maps) {
            for (String mapId : list.split(",", -1)) {
                mapIds.add(canonicalMap(mapId, job));
            }
        }
        List<String> keepAlive = query.get("keepAlive");
        boolean keepAliveAsked = keepAlive != null && keepAlive.size() == 1 && Boolean.parseBoolean(keepAlive.get(0))
                || "keep-alive".equalsIgnoreCase(head.field("Connection"));
        return new ShuffleRequest(uri, jobId, reduce, List.copyOf(mapIds), keepAliveAsked,
                head.field(SecureShuffleUtils.HTTP_HEADER_URL_HASH), head.field(TipcShuffleConfig.TARGET_HEADER));
    }

    private static JobID canonicalJob(String jobId) throws ShuffleException {
        try {
            JobID job = JobID.forName(jobId);
            if (job.toString().equals(jobId)) {
                return job;
            }
        } catch (IllegalArgumentException e) {
            // reported below
        }
        throw new ShuffleException(400, "Bad job parameter");
    }

    private static String canonicalMap(String mapId, JobID job) throws ShuffleException {
        try {
            TaskAttemptID attempt = TaskAttemptID.forName(mapId);
            if (attempt != null && attempt.toString().equals(mapId) && attempt.getJobID().equals(job)) {
                return mapId;
            }
        } catch (IllegalArgumentException e) {
            // reported below
        }
        throw new ShuffleException(400, "Bad map parameter");
    }

    private static Map<String, List<String>> query(String uri) throws ShuffleException {
        int q = uri.indexOf('?');
        if (!uri.startsWith("/") || q < 0) {
            throw new ShuffleException(400, "Required param job, map and reduce");
        }
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (String pair : uri.substring(q + 1).split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                params.computeIfAbsent(URLDecoder.decode(name, StandardCharsets.UTF_8), k -> new ArrayList<>())
                        .add(URLDecoder.decode(value, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new ShuffleException(400, "Malformed query");
            }
        }
        return params;
    }
}
