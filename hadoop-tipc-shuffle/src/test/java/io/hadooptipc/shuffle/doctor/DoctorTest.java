package io.hadooptipc.shuffle.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The doctor on this build host, whose kernel has no AF_TIPC. */
class DoctorTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int doctor(String... args) {
        return Doctor.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void saysTheKernelHasNoTipcAndHowToFixIt() {
        assertEquals(1, doctor());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("OK   native-library "), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("FAIL af-tipc ") && l.contains("EAFNOSUPPORT (errno 97")
                && l.contains("fix: load the kernel module: modprobe tipc")), text);
        for (String skipped : new String[]{"node-identity", "bearers", "links", "shuffle-names", "peer-names"}) {
            assertTrue(text.lines().anyMatch(l -> l.startsWith("SKIP " + skipped)), skipped + " skipped:\n" + text);
        }
        assertTrue(text.lines().anyMatch(l -> l.startsWith("OK   service-type") && l.contains("18700")), text);
        assertTrue(text.endsWith("not ready: 1 check(s) failed\n"), text);
    }

    @Test
    void jsonIsOneParseableObjectWithTheSameVerdict() throws Exception {
        assertEquals(1, doctor("--json"));
        JsonNode report = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        assertFalse(report.get("ready").asBoolean());
        JsonNode af = null;
        for (JsonNode check : report.get("checks")) {
            if (check.get("name").asText().equals("af-tipc")) {
                af = check;
            }
        }
        assertEquals("FAIL", af.get("status").asText());
        assertTrue(af.get("finding").asText().contains("EAFNOSUPPORT"), af.toString());
        assertEquals(9, report.get("checks").size());
    }

    @Test
    void anUnknownArgumentGetsTheUsageAndExit2() {
        assertEquals(2, doctor("--jsn"));
        assertEquals(Doctor.USAGE + "\n", err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBadServiceTypeFailsWithTheKey() {
        Check.Status status = new NodeDoctor(conf("mapreduce.shuffle.tipc.service.type", "42"), BearerCheck.COMMAND,
                () -> false).examine().checks().stream().filter(c -> c.name().equals("service-type"))
                .findFirst().orElseThrow().status();
        assertEquals(Check.Status.FAIL, status);
    }

    @Test
    void aNodeManagerThatRequiresEncryptedShuffleCannotCarryTheTipcShuffle() {
        Check serving = new NodeDoctor(conf("mapreduce.shuffle.ssl.enabled", "true"), BearerCheck.COMMAND,
                () -> false).examine().checks().stream().filter(c -> c.name().equals("serving")).findFirst().orElseThrow();
        assertEquals(Check.Status.FAIL, serving.status());
        assertTrue(serving.finding().contains("mapreduce.shuffle.ssl.enabled"), serving.finding());
    }

    @Test
    void findingsWithQuotesAndLineBreaksStayValidJson() throws Exception {
        String nasty = "a \"quoted\" \\ path\nsecond line\t\u0001";
        DoctorReport report = new DoctorReport(java.util.List.of(new Check("x", Check.Status.WARN, nasty, "")));
        JsonNode parsed = new ObjectMapper().readTree(report.json());
        assertEquals(nasty, parsed.get("checks").get(0).get("finding").asText());
        assertTrue(parsed.get("ready").asBoolean());
    }

    private static org.apache.hadoop.conf.Configuration conf(String key, String value) {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.set(key, value);
        return conf;
    }
}
