package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the kernel says of the calling thread, from /proc/self/task/TID/status. */
final class ThreadStatus {
    private ThreadStatus() {
    }

    static String cpusAllowedList() throws IOException {
        Path status = Path.of("/proc/self/task/" + LinuxThreads.currentThreadId() + "/status");
        return Files.readAllLines(status).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElseThrow();
    }
}
