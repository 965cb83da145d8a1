package io.hadooptipc.shuffle;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * What the running kernel shows about TIPC link encryption (TIPC's AEAD, {@code tipc node set key}).
 * Whether the kernel can encrypt shows in {@code /proc/kallsyms}, which lists the functions of
 * net/tipc/crypto.c by name to every user in every network namespace when the kernel or its loaded
 * tipc module was built with {@code CONFIG_TIPC_CRYPTO} ({@code /proc/sys/net/tipc/max_tfms} exists in
 * the initial namespace only). Whether a key is set shows nowhere: TIPC's netlink family can set
 * and flush keys but has no command to read them, its node dump carries an address and an up flag
 * only, and the crypto statistics go to the kernel log on a root-only sysctl write.
 */
public final class KernelLinkCrypto {
    public static final Path KALLSYMS = Paths.get("/proc/kallsyms");
    /** Receives every encrypted TIPC frame; in crypto.h, so never inlined away. */
    static final String CRYPTO_FUNCTION = "tipc_crypto_rcv";

    private KernelLinkCrypto() {
    }

    /**
     * Why this kernel cannot encrypt TIPC links, or null if it can: read from {@code kallsyms}
     * ({@link #KALLSYMS}), a symbol a line: address, type, name, then the module in brackets.
     */
    public static String whyNotEncrypted(Path kallsyms) {
        try (BufferedReader lines = Files.newBufferedReader(kallsyms, StandardCharsets.US_ASCII)) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                int name = line.indexOf(' ', line.indexOf(' ') + 1) + 1;
                if (line.startsWith(CRYPTO_FUNCTION, name)) {
                    int end = name + CRYPTO_FUNCTION.length();
                    if (end == line.length() || line.charAt(end) == '\t' || line.charAt(end) == ' ') {
                        return null;
                    }
                }
            }
            return "the kernel has no TIPC encryption (" + kallsyms + " lists no " + CRYPTO_FUNCTION
                    + ": no tipc module loaded, or built without CONFIG_TIPC_CRYPTO)";
        } catch (IOException e) {
            return "whether the kernel can encrypt TIPC is unknown: " + kallsyms + " is unreadable (" + e + ")";
        }
    }
}
