package io.hadooptipc.shuffle.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
        for (String skipped : new String[]{"node-identity", "bearers", "links", "link-tolerance", "island", "shuffle-names", "peer-names"}) {
            assertTrue(text.lines().anyMatch(l -> l.startsWith("SKIP " + skipped)), skipped + " skipped:\n" + text);
        }
        assertTrue(text.lines().anyMatch(l -> l.startsWith("OK   service-type") && l.contains("18700")), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("FAIL tipc-module ") && l.contains("has no TIPC")), text);
        assertTrue(text.endsWith("not ready: 2 check(s) failed\n"), text);
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
        assertEquals(15, report.get("checks").size());
    }

    @Test
    void anUnknownArgumentGetsTheUsageAndExit2() {
        assertEquals(2, doctor("--jsn"));
        assertEquals(Doctor.USAGE + "\n", err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBadServiceTypeFailsWithTheKey() {
        assertEquals(Check.Status.FAIL, check(conf("mapreduce.shuffle.tipc.service.type", "42"), "service-type").status());
    }

    @Test
    void aNodeManagerThatRequiresEncryptedShuffleOnLinksNotDeclaredEncryptedServesTlsOverTipc() {
        Check encryption = check(conf("mapreduce.shuffle.ssl.enabled", "true"), "encryption");
        assertEquals(Check.Status.OK, encryption.status());
        assertTrue(encryption.finding().contains("mapreduce.shuffle.ssl.enabled")
                && encryption.finding().contains("over TIPC in TLS")
                && encryption.finding().contains("hadoop.ssl.server.conf"), encryption.finding());
        assertEquals(Check.Status.OK, check(conf("mapreduce.shuffle.ssl.enabled", "true"), "serving").status(),
                "serving is about mapreduce.shuffle.tipc.enabled only");
    }

    @Test
    void encryptionSaysWhatIsDeclaredThatTheKernelCannotConfirmAKeyAndFailsWithoutKernelEncryption(@TempDir Path dir)
            throws Exception {
        Configuration declared = conf("mapreduce.shuffle.ssl.enabled", "true");
        declared.setBoolean("mapreduce.shuffle.tipc.links.encrypted", true);
        // Lines as /proc/kallsyms has them for an unprivileged reader: no addresses, the module in brackets.
        Path sysctl = Files.writeString(dir.resolve("kallsyms"), "0000000000000000 t tipc_crypto_rcv_complete\t[tipc]\n"
                + "0000000000000000 t tipc_crypto_rcv\t[tipc]\n");
        Path noTipcCrypto = Files.writeString(dir.resolve("kallsyms-without"), "0000000000000000 T tipc_sk_rcv\t[tipc]\n"
                + "0000000000000000 t tipc_crypto_rcv_complete\t[tipc]\n");

        Check unverified = EncryptionCheck.of(declared, true, sysctl);
        assertEquals(Check.Status.WARN, unverified.status());
        assertTrue(unverified.finding().contains("unverified") && unverified.finding().contains("without TLS")
                && unverified.finding().contains("mapreduce.shuffle.tipc.links.encrypted"), unverified.finding());
        Check noCrypto = EncryptionCheck.of(declared, true, noTipcCrypto);
        assertEquals(Check.Status.FAIL, noCrypto.status());
        assertTrue(noCrypto.finding().contains("CONFIG_TIPC_CRYPTO") && noCrypto.finding().contains("stock HTTPS"),
                noCrypto.finding());
        Check unreadable = EncryptionCheck.of(declared, true, dir.resolve("absent"));
        assertEquals(Check.Status.FAIL, unreadable.status());
        assertTrue(unreadable.finding().contains("unreadable"), unreadable.finding());
        assertEquals(Check.Status.SKIP, EncryptionCheck.of(declared, false, sysctl).status());
        Check notRequired = EncryptionCheck.of(new Configuration(false), true, sysctl);
        assertEquals(Check.Status.OK, notRequired.status());
        assertTrue(notRequired.finding().contains("no encrypted shuffle required"), notRequired.finding());
        assertEquals(Check.Status.FAIL, check(conf("mapreduce.shuffle.tipc.enabled", "false"), "serving").status());
    }

    private static Check check(Configuration conf, String name) {
        return new NodeDoctor(conf, BearerCheck.COMMAND, () -> false, SystemRoot.HOST).examine().checks().stream()
                .filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void findingsWithQuotesAndLineBreaksStayValidJson() throws Exception {
        String nasty = "a \"quoted\" \\ path\nsecond line\t\u0001";
        DoctorReport report = new DoctorReport(java.util.List.of(new Check("x", Check.Status.WARN, nasty, "")));
        JsonNode parsed = new ObjectMapper().readTree(report.json());
        assertEquals(nasty, parsed.get("checks").get(0).get("finding").asText());
        assertTrue(parsed.get("ready").asBoolean());
    }

    private static Configuration conf(String key, String value) {
        Configuration conf = new Configuration(false);
        conf.set(key, value);
        return conf;
    }
}
