package io.hadooptipc.hdfs.affinity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Lays out a recorded machine from {@code src/test/fixtures/topology/NAME.txt} (see
 * record-topology there) as a tree with {@code sys/} and {@code proc/} under {@code dir}.
 */
final class TopologyFixture {
    private static final Path FIXTURES = Path.of("src/test/fixtures/topology");

    private TopologyFixture() {
    }

    static TopologyReader reader(String name, Path dir) throws IOException {
        Path file = null;
        List<String> content = new ArrayList<>();
        for (String line : Files.readAllLines(FIXTURES.resolve(name))) {
            if (line.startsWith("=== ")) {
                write(dir, file, content);
                file = null;
                String entry = line.substring(4);
                int arrow = entry.indexOf(" -> ");
                if (arrow > 0) {
                    Path link = dir.resolve(entry.substring(0, arrow));
                    Files.createDirectories(link.getParent());
                    Files.createSymbolicLink(link, Path.of(entry.substring(arrow + 4)));
                } else {
                    file = dir.resolve(entry);
                }
            } else if (file != null) {
                content.add(line);
            }
        }
        write(dir, file, content);
        return new TopologyReader(dir.resolve("sys"), dir.resolve("proc"));
    }

    private static void write(Path dir, Path file, List<String> content) throws IOException {
        if (file != null) {
            Files.createDirectories(file.getParent());
            Files.write(file, content);
        }
        content.clear();
    }
}
