package io.hadooptipc.bench.seeds;

import java.util.ArrayList;
import java.util.List;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.spi.LoggingEvent;

/**
 * Counts spills and merge passes of in-process (LocalJobRunner) MapReduce jobs from the lines
 * Hadoop logs at INFO for each: MapTask's "Finished spill N" (N from 0 in each map task) and
 * Merger's "Merging K intermediate segments out of a total of T" for each intermediate merge
 * and "Down to the last merge-pass, ..." for the final one. Spills are logged by a map's spill
 * thread too, but a map merges its spills on its own thread, one of LocalJobRunner's "Map Task
 * Executor" threads: a merge logged on any other thread is the reduce's.
 * Attach it to the MapTask, Merger and LocalJobRunner loggers; {@link #take} per job.
 */
final class MergeLog extends AppenderSkeleton {
    static final String MAP_THREAD_PREFIX = "LocalJobRunner Map Task Executor";

    /** What one job logged. {@code mapPhaseEndMillis} is -1 if the map phase's end was not seen. */
    record Counts(List<Integer> spillsPerMap, int mapMergePasses, int reduceMergePasses, long mapPhaseEndMillis) {
        int spills() {
            return spillsPerMap.stream().mapToInt(Integer::intValue).sum();
        }

        /** {@link MergePasses#mapSide} summed over the map tasks, for the spills they logged. */
        int modelMapMergePasses(int factor) {
            return spillsPerMap.stream().mapToInt(s -> MergePasses.mapSide(s, factor)).sum();
        }
    }

    private List<Integer> spillsPerMap = new ArrayList<>();
    private int mapMergePasses;
    private int reduceMergePasses;
    private long mapPhaseEndMillis = -1;

    synchronized void record(String thread, String message, long millis) {
        boolean mapTask = thread.startsWith(MAP_THREAD_PREFIX);
        if (message.startsWith("Finished spill ")) {
            if (message.equals("Finished spill 0")) {
                spillsPerMap.add(0);
            }
            spillsPerMap.set(spillsPerMap.size() - 1, spillsPerMap.get(spillsPerMap.size() - 1) + 1);
        } else if (message.startsWith("Down to the last merge-pass")
                || message.startsWith("Merging ") && message.contains(" intermediate segments out of ")) {
            if (mapTask) {
                mapMergePasses++;
            } else {
                reduceMergePasses++;
            }
        } else if (message.equals("map task executor complete.")) {
            mapPhaseEndMillis = millis;
        }
    }

    /** What was logged since the last call, and starts counting afresh. */
    synchronized Counts take() {
        Counts counts = new Counts(List.copyOf(spillsPerMap), mapMergePasses, reduceMergePasses, mapPhaseEndMillis);
        spillsPerMap = new ArrayList<>();
        mapMergePasses = 0;
        reduceMergePasses = 0;
        mapPhaseEndMillis = -1;
        return counts;
    }

    @Override
    protected void append(LoggingEvent event) {
        record(event.getThreadName(), event.getRenderedMessage(), event.getTimeStamp());
    }

    @Override
    public boolean requiresLayout() {
        return false;
    }

    @Override
    public void close() {
    }
}
