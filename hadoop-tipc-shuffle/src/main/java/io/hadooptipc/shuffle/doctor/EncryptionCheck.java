package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRConfig;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether map output over TIPC meets the node's encryption requirement. TIPC carries no TLS;
 * where {@code mapreduce.shuffle.ssl.enabled} requires an encrypted shuffle, only links the
 * kernel encrypts (TIPC's AEAD, {@code tipc node set key}) may carry it, and the operator says
 * so with {@link TipcShuffleConfig#LINKS_ENCRYPTED}. The kernel cannot confirm it: TIPC's
 * netlink family can set and flush keys but not read them, and iproute2's {@code tipc node}
 * has no command that shows one. What can be seen is whether the kernel can encrypt at all.
 */
final class EncryptionCheck {
    static final String NAME = "encryption";
    /** Registered only by a kernel built with CONFIG_TIPC_CRYPTO, and only in the initial network namespace. */
    static final Path CRYPTO_SYSCTL = Path.of("/proc/sys/net/tipc/max_tfms");
    static final String SET_KEY = "the same key on every node after each boot: tipc node set key 0x<72 hex digits>"
            + " algname \"gcm(aes)\" (a 256-bit AES key and a 32-bit salt; keep it as secret as the job tokens)";

    private EncryptionCheck() {
    }

    /**
     * @param tipc         whether AF_TIPC works here (the kernel module is loaded)
     * @param cryptoSysctl the file that shows the kernel can encrypt TIPC links
     */
    static Check of(Configuration conf, boolean tipc, Path cryptoSysctl) {
        boolean required = TipcShuffleConfig.encryptionRequired(conf);
        boolean declared = TipcShuffleConfig.linksEncrypted(conf);
        if (!required) {
            return Check.ok(NAME, MRConfig.SHUFFLE_SSL_ENABLED_KEY + " = false: no encrypted shuffle required;"
                    + " TIPC carries map output as stock HTTP does" + (declared
                    ? " (" + TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares the links encrypted as well)" : ""));
        }
        if (!declared) {
            return new Check(NAME, Check.Status.FAIL, MRConfig.SHUFFLE_SSL_ENABLED_KEY + " requires encrypted shuffle"
                    + " and " + TipcShuffleConfig.LINKS_ENCRYPTED + " = false: map output is served and fetched"
                    + " over HTTPS only, never over TIPC",
                    "to carry it over TIPC, have the kernel encrypt every TIPC link (" + SET_KEY + "), then set "
                            + TipcShuffleConfig.LINKS_ENCRYPTED + " = true in yarn-site.xml and mapred-site.xml");
        }
        if (!tipc) {
            return Check.skip(NAME, TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares the TIPC links encrypted;"
                    + " whether this kernel can encrypt them needs AF_TIPC (see af-tipc)");
        }
        if (!Files.exists(cryptoSysctl)) {
            return new Check(NAME, Check.Status.WARN, TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares the TIPC"
                    + " links encrypted, but this kernel shows no TIPC encryption (no " + cryptoSysctl + ": built"
                    + " without CONFIG_TIPC_CRYPTO, or this is not the initial network namespace)",
                    "use a kernel with CONFIG_TIPC_CRYPTO and set " + SET_KEY
                            + "; otherwise set " + TipcShuffleConfig.LINKS_ENCRYPTED + " = false");
        }
        return new Check(NAME, Check.Status.WARN, "encrypted shuffle required and served over TIPC because "
                + TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares every TIPC link encrypted by the kernel;"
                + " unverified: the kernel can encrypt TIPC, but it lets no one read whether a key is set",
                "make sure of " + SET_KEY + "; `tipc node flush key` removes it");
    }
}
