package io.hadooptipc.shuffle.doctor;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What modprobe's configuration says about one module, read as kmod reads it: the
 * {@code *.conf} files of its directories, a file hiding any file of the same name in a
 * directory of lower precedence, processed in the order of their names; plus the kernel
 * command line. {@code blacklist m} only stops loading {@code m} through an alias (as
 * {@code socket(AF_TIPC)} does, by {@code net-pf-30}); {@code install m cmd} runs cmd
 * instead of every load of {@code m}, explicit ones too, so a cmd that loads nothing
 * ({@code /bin/true}, {@code /bin/false}) blocks the module.
 */
final class ModprobeConfig {
    /** kmod's configuration directories, highest precedence first. */
    static final List<String> DIRECTORIES = Arrays.asList("/etc/modprobe.d", "/run/modprobe.d",
            "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d");
    static final String CMDLINE = "/proc/cmdline";

    /** One configuration line, where it is ({@code file:number}) and what it says. */
    static final class Line {
        private final String file;
        private final int number;
        private final String text;

        Line(String file, int number, String text) {
            this.file = file;
            this.number = number;
            this.text = text;
        }

        String where() {
            return file + ":" + number;
        }

        @Override
        public String toString() {
            return where() + " (" + text + ")";
        }

        public String file() {
            return file;
        }

        public int number() {
            return number;
        }

        public String text() {
            return text;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Line)) {
                return false;
            }
            Line that = (Line) o;
            return Objects.equals(file, that.file) && number == that.number && Objects.equals(text, that.text);
        }

        @Override
        public int hashCode() {
            return Objects.hash(file, number, text);
        }
    }

    /**
     * @param blacklist lines that stop loading through aliases only
     * @param blocking  lines that stop every load: an {@code install} command that loads no
     *                  module, or the kernel's {@code module_blacklist=}
     */
    static final class ModuleLines {
        private final List<Line> blacklist;
        private final List<Line> blocking;

        ModuleLines(List<Line> blacklist, List<Line> blocking) {
            this.blacklist = blacklist;
            this.blocking = blocking;
        }

        public List<Line> blacklist() {
            return blacklist;
        }

        public List<Line> blocking() {
            return blocking;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof ModuleLines)) {
                return false;
            }
            ModuleLines that = (ModuleLines) o;
            return Objects.equals(blacklist, that.blacklist) && Objects.equals(blocking, that.blocking);
        }

        @Override
        public int hashCode() {
            return Objects.hash(blacklist, blocking);
        }

        @Override
        public String toString() {
            return "ModuleLines[blacklist=" + blacklist + ", blocking=" + blocking + "]";
        }
    }

    private ModprobeConfig() {
    }

    static ModuleLines of(SystemRoot root, String module) {
        List<Line> blacklist = new ArrayList<>();
        List<Line> blocking = new ArrayList<>();
        for (Map.Entry<String, Path> file : effectiveFiles(root).entrySet()) {
            List<String> physical = readLines(file.getValue());
            String shown = displayPath(root, file.getValue());
            for (int i = 0; i < physical.size(); i++) {
                int number = i + 1;
                StringBuilder logical = new StringBuilder(physical.get(i));
                // A trailing backslash continues the command on the next line.
                while (logical.toString().endsWith("\\") && i + 1 < physical.size()) {
                    logical.setLength(logical.length() - 1);
                    logical.append(' ').append(physical.get(++i));
                }
                String text = logical.toString().trim().replaceAll("\\s+", " ");
                if (text.isEmpty() || text.startsWith("#")) {
                    continue;
                }
                String[] words = text.split(" ");
                if (words.length < 2 || !sameModule(words[1], module)) {
                    continue;
                }
                if (words[0].equals("blacklist")) {
                    blacklist.add(new Line(shown, number, text));
                } else if (words[0].equals("install") && !loadsAModule(text)) {
                    blocking.add(new Line(shown, number, text));
                }
            }
        }
        commandLine(root, module, blacklist, blocking);
        return new ModuleLines(blacklist, blocking);
    }

    /** The files kmod reads, by name: the first directory holding a name wins. */
    static TreeMap<String, Path> effectiveFiles(SystemRoot root) {
        TreeMap<String, Path> files = new TreeMap<>();
        for (String dir : DIRECTORIES) {
            Path path = root.path(dir);
            if (!Files.isDirectory(path)) {
                continue;
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(path, "*.conf")) {
                for (Path entry : entries) {
                    files.putIfAbsent(entry.getFileName().toString(), entry);
                }
            } catch (IOException e) {
                // An unreadable directory is one modprobe cannot read either.
            }
        }
        return files;
    }

    /** {@code modprobe.blacklist=} is a blacklist line; {@code module_blacklist=} makes the kernel refuse the module. */
    private static void commandLine(SystemRoot root, String module, List<Line> blacklist, List<Line> blocking) {
        String cmdline = root.read(CMDLINE).orElse("").trim();
        for (String word : cmdline.split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String key = word.substring(0, eq);
            for (String listed : word.substring(eq + 1).split(",")) {
                if (sameModule(listed, module)) {
                    if (key.equals("modprobe.blacklist")) {
                        blacklist.add(new Line(CMDLINE, 1, word));
                    } else if (key.equals("module_blacklist")) {
                        blocking.add(new Line(CMDLINE, 1, word));
                    }
                }
            }
        }
    }

    private static boolean loadsAModule(String installLine) {
        return installLine.contains("modprobe") || installLine.contains("insmod");
    }

    /** Module names treat - and _ alike. */
    private static boolean sameModule(String a, String b) {
        return a.replace('-', '_').equals(b.replace('-', '_'));
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            return Collections.emptyList();
        }
    }

    /** The file as the node names it: relative to the root, with a leading slash. */
    private static String displayPath(SystemRoot root, Path file) {
        return "/" + root.root().relativize(file).toString().replace('\\', '/');
    }
}
