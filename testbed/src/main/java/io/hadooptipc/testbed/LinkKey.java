package io.hadooptipc.testbed;

import java.io.IOException;
import java.time.Duration;

/**
 * The TIPC cluster key of this testbed machine's node, with which the kernel encrypts every link
 * (TIPC's AEAD, gcm(aes); tipc-vm loads the crypto modules it takes): what
 * {@code mapreduce.shuffle.tipc.links.encrypted} declares, for the kernel test that proves it
 * and the benchmark that measures it. The same key on both ends of a link, or none.
 */
public final class LinkKey {
    static final String KEY = "0x" + "5eed".repeat(18); // 36 bytes: an AES-256 key and a 4-byte salt

    private LinkKey() {
    }

    public static void set() throws Exception {
        Testbed.sh("tipc node set key " + KEY + " algname gcm(aes)");
    }

    /** Removes every key of this node: its links carry plaintext again once the peer's key is gone too. */
    public static void flush() throws Exception {
        Testbed.sh("tipc node flush key");
    }

    /**
     * Waits until a link to another node is up: between one end's key change and the other's, neither
     * could read the other, which may have reset the link.
     */
    public static void awaitLink(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (Testbed.sh("tipc link list").lines()
                .noneMatch(link -> link.endsWith(": up") && !link.startsWith("broadcast-link"))) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no link to another node came up within " + timeout);
            }
            Thread.sleep(200);
        }
    }
}
