package io.hadooptipc.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/hadoop-tipc of the unpacked tarball, run as a node would run it. The test JVM's
 * class path is Hadoop without our jars (failsafe excludes them), so it stands for
 * `hadoop classpath`, and our classes can come only from the tarball's lib/.
 */
class LauncherIT {
    /** No hadoop on this PATH, so only the environment decides where Hadoop is. */
    static final String PATH = "/usr/bin:/bin";

    static final class Run {
        private final int exit;
        private final String out;
        private final String err;

        Run(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        public int exit() {
            return exit;
        }

        public String out() {
            return out;
        }

        public String err() {
            return err;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Run)) {
                return false;
            }
            Run that = (Run) o;
            return exit == that.exit && Objects.equals(out, that.out) && Objects.equals(err, that.err);
        }

        @Override
        public int hashCode() {
            return Objects.hash(exit, out, err);
        }

        @Override
        public String toString() {
            return "Run[exit=" + exit + ", out=" + out + ", err=" + err + "]";
        }
    }

    @Test
    void withoutAHadoopClassPathItSaysWhatToSet() throws Exception {
        Run r = launch(Map.of(), "doctor");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("hadoop-tipc: no Hadoop class path: set HADOOP_HOME"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void noOrAnUnknownCommandGetsTheUsage() throws Exception {
        Run none = launch(Map.of());
        assertEquals(2, none.exit());
        assertTrue(none.err().startsWith("usage: hadoop-tipc COMMAND"), none.err());
        Run unknown = launch(Map.of(), "docter");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().startsWith("hadoop-tipc: unknown command 'docter'\nusage: hadoop-tipc"), unknown.err());
    }

    @Test
    void doctorReadsTheNodesConfigurationFromHadoopConfDir(@TempDir Path conf) throws Exception {
        Files.writeString(conf.resolve("yarn-site.xml"), "<configuration><property>\n"
                + "  <name>mapreduce.shuffle.tipc.service.type</name><value>19000</value>\n"
                + "</property></configuration>\n");
        Run r = launch(Map.of("HADOOP_CLASSPATH", System.getProperty("java.class.path"),
                "HADOOP_CONF_DIR", conf.toString()), "doctor", "--json");
        JsonNode report = new ObjectMapper().readTree(r.out());
        assertEquals(report.get("ready").asBoolean() ? 0 : 1, r.exit(), r.err());
        String serviceType = null;
        for (JsonNode check : report.get("checks")) {
            if (check.get("name").asText().equals("service-type")) {
                serviceType = check.get("finding").asText();
            }
        }
        assertTrue(serviceType.contains("= 19000"), serviceType);
    }

    @Test
    void storagePolicyReportRunsFromTheTarball() throws Exception {
        Run r = launch(Map.of("HADOOP_CLASSPATH", System.getProperty("java.class.path")), "storage-policy-report");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("usage: StoragePolicyReport"), r.err());
    }

    static Run launch(Map<String, String> env, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                UnpackedTarball.home().resolve("bin/hadoop-tipc").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().put("PATH", PATH);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile("launcher", ".out");
        Path err = Files.createTempFile("launcher", ".err");
        Process p = pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        try {
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.delete(out);
            Files.delete(err);
        }
    }
}
