package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig.Transport;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.server.TipcShuffleHandler;
import io.hadooptipc.testbed.CountingReporter;
import io.hadooptipc.testbed.LinkKey;
import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.testbed.Testbed;
import io.hadooptipc.testbed.TestbedNetwork;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TIPC's AEAD across a real link: what {@code mapreduce.shuffle.tipc.links.encrypted} declares.
 * On two testbed machines ({@code tipc-vm --machines 2}; between namespaces of one kernel TIPC
 * data never reaches a NIC), a {@link TipcShuffleHandler} on m2 serves a known map output and m1
 * fetches it over TIPC while tcpdump records every frame on m1's NIC. Without a key the capture
 * holds the map output's bytes (so this test can fail); with the same key set on both nodes
 * ({@code tipc node set key}) the same fetch arrives intact and the capture, though it carries at
 * least as many bytes, holds none of them. m1 drives; m2 serves and sets its key when asked, over
 * a TCP control connection that no TIPC key affects.
 */
@Tag("tipc-kernel")
@Tag("slow")
class EncryptedLinkKernelTest {
    static final int PARTITION = 256 << 10;
    static final int CONTROL_PORT = 18701;
    static final String SERVER_IP = TestbedNetwork.machine(2);
    static final int WINDOW = 32;

    @TempDir
    Path local;

    @Test
    void mapOutputCrossesAnEncryptedLinkWithoutABytePlain() throws Exception {
        assumeTrue("2".equals(System.getenv("TIPC_TESTBED_MACHINES")), "needs tipc-vm --machines 2");
        MapOutputFixture outputs = new MapOutputFixture(local, 1, 1, PARTITION);
        if ("2".equals(System.getenv("TIPC_TESTBED_MACHINE"))) {
            serve(outputs);
        } else {
            fetchTwice(); // the same map output as m2's: the fixture's bytes are seeded
        }
    }

    /** m2: serves the map output and sets its key when m1 asks, until m1 is done. */
    private static void serve(MapOutputFixture outputs) throws Exception {
        TipcShuffleHandler handler = outputs.serve(new TipcShuffleHandler(), new YarnConfiguration(), 0);
        try (ServerSocket control = new ServerSocket()) {
            assertTrue(handler.isServingTipc(), "the handler on m2 serves TIPC");
            control.bind(new InetSocketAddress(SERVER_IP, CONTROL_PORT));
            try (Socket m1 = control.accept();
                 BufferedReader in = new BufferedReader(new InputStreamReader(m1.getInputStream(), StandardCharsets.UTF_8));
                 PrintWriter out = new PrintWriter(m1.getOutputStream(), true, StandardCharsets.UTF_8)) {
                // The port and the job token's key: the map output is the same on both machines, the token random.
                out.println(ShuffleHandler.deserializeMetaData(handler.getMetaData()) + " "
                        + Base64.getEncoder().encodeToString(outputs.key.getEncoded()));
                for (String line = in.readLine(); "key".equals(line); line = in.readLine()) {
                    LinkKey.set();
                    out.println("keyed");
                }
            }
        } finally {
            handler.stop();
        }
    }

    /** m1: the fetch on a plain link, then on an encrypted one, each under a capture of the NIC. */
    private void fetchTwice() throws Exception {
        byte[] mapOutput = Files.readAllBytes(MapOutputFixture.outputFile(local, ShuffleWire.map(0)));
        try (Socket m2 = Testbed.connect(SERVER_IP, CONTROL_PORT, Duration.ofMinutes(10));
             BufferedReader in = new BufferedReader(new InputStreamReader(m2.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(m2.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String[] portAndKey = in.readLine().split(" ");
            int port = Integer.parseInt(portAndKey[0]);
            SecretKey key = JobTokenSecretManager.createSecretKey(Base64.getDecoder().decode(portAndKey[1]));
            ShuffleServiceName server = ShuffleServiceName.of(InetAddress.getByName(SERVER_IP), port);

            Tipc.awaitPublished(server.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Duration.ofMinutes(2));
            byte[] plain = captured("plain", () -> assertArrayEquals(mapOutput, fetch(key, port)));
            int seen = windowsIn(plain, mapOutput);
            assertTrue(seen > windows(mapOutput) / 2, "without a key the capture holds the map output: "
                    + seen + " of " + windows(mapOutput) + " " + WINDOW + "-byte pieces");

            out.println("key");
            assertEquals("keyed", in.readLine(), "m2 set its key");
            LinkKey.set();
            byte[] encrypted = captured("keyed", () -> assertArrayEquals(mapOutput, fetchOnceLinkSettles(key, server)));
            assertTrue(encrypted.length > PARTITION, "the encrypted fetch crossed the NIC: " + encrypted.length + " bytes");
            assertEquals(0, windowsIn(encrypted, mapOutput), "with a key on both nodes the capture holds no piece"
                    + " of the map output");
            out.println("done");
            System.out.printf("plain link: %d of %d pieces in a %d-byte capture; encrypted link: 0 in %d bytes%n",
                    seen, windows(mapOutput), plain.length, encrypted.length);
        }
    }

    /**
     * {@link #fetch} once the link is up and the name published, again if the link went down under
     * it: between m2's key and m1's, neither node could read the other, which may reset the link.
     */
    private static byte[] fetchOnceLinkSettles(SecretKey key, ShuffleServiceName server) throws Exception {
        for (int attempt = 1; ; attempt++) {
            LinkKey.awaitLink(Duration.ofMinutes(1));
            Tipc.awaitPublished(server.tipcAddress(TipcShuffleConfig.DEFAULT_SERVICE_TYPE), Duration.ofMinutes(1));
            try {
                return fetch(key, server.port());
            } catch (IOException e) {
                if (attempt == 5) {
                    throw e;
                }
                Thread.sleep(2000);
            }
        }
    }

    /** Fetches the one map output over TIPC only with the job token's {@code key}, checking the ReplyHash; returns its bytes. */
    private static byte[] fetch(SecretKey key, int port) throws Exception {
        CountingReporter reporter = new CountingReporter();
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, ShuffleWire.map(0));
        TipcShuffleConnection c = new TipcShuffleConnection(new URL("http", SERVER_IP, port, uri),
                new TransportRoutes(Transport.TIPC, Tipc.availability(), new TransferCounters(reporter)),
                ReducerConnections.streams(new TransferCounters(reporter), false), new TransferCounters(reporter),
                u -> {
                    throw new AssertionError("no HTTP/TCP: its bytes would be plaintext on the wire");
                }, key);
        String hash = ShuffleWire.urlHash(uri, port, key);
        c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, hash);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
        c.addRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        c.setReadTimeout(120_000);
        try {
            assertEquals(200, c.getResponseCode());
            SecureShuffleUtils.verifyReply(c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, key);
            try (DataInputStream body = new DataInputStream(c.getInputStream())) {
                new ShuffleHeader().readFields(body);
                byte[] data = body.readNBytes(PARTITION);
                assertEquals(-1, body.read());
                assertEquals(PARTITION, reporter.get(TipcShuffleCounter.TIPC_BYTES), "all over TIPC");
                return data;
            }
        } finally {
            c.disconnect();
        }
    }

    /** Runs {@code fetch} while tcpdump records every frame on this machine's NIC; returns the capture file. */
    private byte[] captured(String name, Fetch fetch) throws Exception {
        String nic = NetworkInterface.getByInetAddress(InetAddress.getByName(TestbedNetwork.machine(1))).getName();
        Path pcap = local.resolve(name + ".pcap");
        // Every frame, whole (-s 0), written as it comes (-U), as root (-Z root: the file is in root's folder),
        // through a 64 MiB buffer (-B): with the default 2 MiB, tcpdump under emulation lost part of a fetch.
        Process tcpdump = new ProcessBuilder("tcpdump", "-i", nic, "-U", "-s", "0", "-B", "65536", "-Z", "root",
                "-w", pcap.toString())
                .redirectErrorStream(true).start();
        BufferedReader log = new BufferedReader(new InputStreamReader(tcpdump.getInputStream(), StandardCharsets.UTF_8));
        String line = log.readLine();
        while (line != null && !line.contains("listening on")) { // capturing from that line on
            line = log.readLine();
        }
        assertTrue(line != null, "tcpdump did not start");
        try {
            fetch.run();
            awaitDrained(pcap);
        } finally {
            tcpdump.toHandle().destroy(); // SIGTERM, keeping its output: tcpdump closes the file and prints its counts
            assertTrue(tcpdump.waitFor(30, TimeUnit.SECONDS), "tcpdump ended");
        }
        log.lines().forEach(l -> System.out.println(name + ": tcpdump: " + l)); // "N packets dropped by kernel"
        return Files.readAllBytes(pcap);
    }

    /**
     * Waits until tcpdump has written what the kernel handed it: the file grows by less than a
     * frame a second for three seconds in a row (only link supervision is left), for at most 60 s.
     * Stopped at once, it left 34 of 221 frames of a fetch unwritten under emulation; after one quiet
     * second, 63 of 289.
     */
    private static void awaitDrained(Path pcap) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int quietSeconds = 0;
        for (long before = Files.size(pcap); quietSeconds < 3 && System.nanoTime() < deadline; ) {
            Thread.sleep(1000);
            long now = Files.size(pcap);
            quietSeconds = now - before < 1500 ? quietSeconds + 1 : 0;
            before = now;
        }
    }

    private static int windows(byte[] mapOutput) {
        return mapOutput.length / WINDOW;
    }

    /** How many of the map output's consecutive {@value #WINDOW}-byte pieces occur in {@code capture}. */
    static int windowsIn(byte[] capture, byte[] mapOutput) {
        Set<ByteBuffer> pieces = new HashSet<>();
        for (int i = 0; i + WINDOW <= mapOutput.length; i += WINDOW) {
            pieces.add(ByteBuffer.wrap(Arrays.copyOfRange(mapOutput, i, i + WINDOW)));
        }
        Set<ByteBuffer> found = new HashSet<>();
        for (int i = 0; i + WINDOW <= capture.length; i++) {
            ByteBuffer at = ByteBuffer.wrap(capture, i, WINDOW).slice();
            if (pieces.contains(at)) {
                found.add(at);
            }
        }
        return found.size();
    }

    @FunctionalInterface
    interface Fetch {
        void run() throws Exception;
    }
}
