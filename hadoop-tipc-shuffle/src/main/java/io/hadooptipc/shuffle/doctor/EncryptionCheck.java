package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.KernelLinkCrypto;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.shuffle.TipcShuffleConfig.Encryption;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.security.ssl.SSLFactory;

import java.nio.file.Path;

/**
 * How map output over TIPC meets the node's encryption requirement. Where
 * {@code mapreduce.shuffle.ssl.enabled} requires an encrypted shuffle, TIPC carries TLS with
 * stock's SSL settings, unless the operator declares every TIPC link encrypted by the kernel
 * (TIPC's AEAD, {@code tipc node set key}; {@link TipcShuffleConfig#LINKS_ENCRYPTED}). Then the
 * NodeManager serves TIPC only on a kernel that can encrypt it ({@link KernelLinkCrypto}); whether
 * a key is set, the kernel lets no one read.
 */
final class EncryptionCheck {
    static final String NAME = "encryption";
    static final String SET_KEY = "the same key on every node after each boot: tipc node set key 0x<72 hex digits>"
            + " algname \"gcm(aes)\" (a 256-bit AES key and a 32-bit salt; keep it as secret as the job tokens)";

    private EncryptionCheck() {
    }

    /**
     * @param tipc     whether AF_TIPC works here (the kernel module is loaded)
     * @param kallsyms the kernel's symbols ({@link KernelLinkCrypto#KALLSYMS})
     */
    static Check of(Configuration conf, boolean tipc, Path kallsyms) {
        Encryption encryption = Encryption.of(conf);
        if (encryption == Encryption.NONE) {
            boolean declared = conf.getBoolean(TipcShuffleConfig.LINKS_ENCRYPTED,
                    TipcShuffleConfig.DEFAULT_LINKS_ENCRYPTED);
            return Check.ok(NAME, MRConfig.SHUFFLE_SSL_ENABLED_KEY + " = false: no encrypted shuffle required;"
                    + " TIPC carries map output as stock HTTP does" + (declared
                    ? " (" + TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares the links encrypted as well)" : ""));
        }
        if (encryption == Encryption.TLS) {
            return Check.ok(NAME, MRConfig.SHUFFLE_SSL_ENABLED_KEY + " requires encrypted shuffle: map output goes"
                    + " over TIPC in TLS, with stock's SSL settings (the NodeManager's "
                    + SSLFactory.SSL_SERVER_CONF_KEY + ", the job's " + SSLFactory.SSL_CLIENT_CONF_KEY + "), as over HTTPS");
        }
        if (!tipc) {
            return Check.skip(NAME, TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares the TIPC links encrypted;"
                    + " whether this kernel can encrypt them needs AF_TIPC (see af-tipc)");
        }
        String unencrypted = KernelLinkCrypto.whyNotEncrypted(kallsyms);
        if (unencrypted != null) {
            return new Check(NAME, Check.Status.FAIL, TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares the TIPC"
                    + " links encrypted, but " + unencrypted + ": the NodeManager serves nothing over TIPC, and"
                    + " reducers fetch from it over stock HTTPS",
                    "use a kernel with CONFIG_TIPC_CRYPTO and set " + SET_KEY
                            + "; or set " + TipcShuffleConfig.LINKS_ENCRYPTED + " = false (TLS over TIPC)");
        }
        return new Check(NAME, Check.Status.WARN, "encrypted shuffle required and served over TIPC without TLS because "
                + TipcShuffleConfig.LINKS_ENCRYPTED + " = true declares every TIPC link encrypted by the kernel;"
                + " unverified: the kernel can encrypt TIPC, but it lets no one read whether a key is set",
                "make sure of " + SET_KEY + "; `tipc node flush key` removes it; "
                        + TipcShuffleConfig.LINKS_ENCRYPTED + " = false serves TLS over TIPC instead");
    }
}
