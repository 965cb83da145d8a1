package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static io.hadooptipc.testbed.Testbed.start;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** 256 MiB from n1 to n2 over one TIPC stream, verified by checksum on both ends. */
@Tag("tipc-kernel")
class BulkTransferKernelTest {
    private static final long TOTAL = 256L << 20;
    private static final int PATTERN = 1 << 20;

    @Test
    void quarterGigabyteArrivesIntact() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20031, 1);
        TipcServerSocketChannel server = on("n2", () -> TipcServerSocketChannel.open().bind(name));
        Future<long[]> received = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                CRC32C crc = new CRC32C();
                ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);
                long bytes = 0;
                for (int n; (n = c.read(buf.clear())) > 0; bytes += n) {
                    crc.update(buf.flip());
                }
                return new long[] {bytes, crc.getValue()};
            }
        });

        // A random pattern, sent from a different offset each round so no two chunks repeat alike.
        ByteBuffer pattern = ByteBuffer.allocateDirect(2 * PATTERN);
        byte[] random = new byte[PATTERN];
        new Random(42).nextBytes(random);
        pattern.put(random).put(random).flip();
        long start = System.nanoTime();
        long sentCrc = on("n1", () -> {
            CRC32C crc = new CRC32C();
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                int round = 0;
                for (long sent = 0; sent < TOTAL; sent += PATTERN, round++) {
                    int offset = (round * 7919) % PATTERN;
                    ByteBuffer chunk = pattern.duplicate().position(offset).limit(offset + PATTERN);
                    crc.update(chunk.duplicate());
                    c.writeFully(chunk);
                }
            }
            return crc.getValue();
        });
        long[] got = Testbed.get(received);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("n1->n2: %d MiB in %.1f s (%.0f MiB/s under emulation)%n", TOTAL >> 20, seconds,
                (TOTAL >> 20) / seconds);
        assertEquals(TOTAL, got[0], "bytes received");
        assertEquals(sentCrc, got[1], "CRC32C of the stream");
    }
}
