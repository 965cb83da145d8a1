package io.hadooptipc.shuffle.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Whether a YARN NodeManager runs on this host: a process whose command line names its main class. */
final class NodeManagerProcess {
    static final String MAIN_CLASS = "org.apache.hadoop.yarn.server.nodemanager.NodeManager";

    private NodeManagerProcess() {
    }

    static boolean running() {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                if (commandLine(process).contains(MAIN_CLASS)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false; // no /proc: the names check then treats the NodeManager as not started
        }
        return false;
    }

    private static String commandLine(Path process) {
        try {
            return new String(Files.readAllBytes(process.resolve("cmdline")), StandardCharsets.UTF_8)
                    .replace('\0', ' ');
        } catch (IOException | SecurityException gone) {
            return "";
        }
    }
}
