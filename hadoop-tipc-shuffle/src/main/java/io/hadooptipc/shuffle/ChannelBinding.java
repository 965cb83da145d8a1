package io.hadooptipc.shuffle;

import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;

import javax.crypto.SecretKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The job-token MACs that bind a fetch over TIPC to the socket it travels on. Any process on any node
 * can bind a shuffle name and be handed reducers' connections; what it cannot choose is the identity
 * the kernel gives its socket ({@code {node, port ref}}). So the request carries a fresh nonce and a
 * MAC over its request target, the nonce and the identity of the socket the reducer is connected to
 * (getpeername); the server serves it only when that identity is its own accepted socket's
 * (getsockname), and answers with a MAC over the nonce and that identity, which the reducer checks
 * before it reads a byte of map output. A process that relays the request from its own socket, or
 * replays it later, presents a MAC over an identity that is not the server's socket; one that
 * answers itself cannot make the reply MAC. The MAC is the job token's HMAC, as stock's UrlHash.
 */
public final class ChannelBinding {
    /** The request's nonce: 16 random bytes, Base64. */
    public static final String NONCE_HEADER = "X-TIPC-Shuffle-Nonce";
    /** The request's MAC over its request target, the nonce and the server socket's identity. */
    public static final String REQUEST_HEADER = "X-TIPC-Shuffle-Binding";
    /** The response's MAC over the request's nonce and the server socket's identity. */
    public static final String REPLY_HEADER = "X-TIPC-Shuffle-Reply-Binding";

    private static final int NONCE_BYTES = 16;
    /** Seeded once, on first use; SecureRandom is safe to share between threads. */
    private static final SecureRandom NONCES = new SecureRandom();
    // Distinct first lines, so that no reply MAC is ever a valid request MAC, or the reverse.
    private static final String REQUEST = "tipc-shuffle-request\n";
    private static final String REPLY = "tipc-shuffle-reply\n";

    private ChannelBinding() {
    }

    /** A fresh nonce for one request. */
    public static String nonce() {
        byte[] bytes = new byte[NONCE_BYTES];
        NONCES.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * The request's MAC.
     *
     * @param target the request target of the request line ({@code /mapOutput?job=...})
     * @param server the identity of the server's socket, as {@code TipcSocketAddress.toString()} writes it
     */
    public static String request(SecretKey key, String target, String nonce, String server) {
        return mac(key, REQUEST + target + '\n' + nonce + '\n' + server);
    }

    /** The reply's MAC; arguments as for {@link #request}. */
    public static String reply(SecretKey key, String nonce, String server) {
        return mac(key, REPLY + nonce + '\n' + server);
    }

    /** Whether {@code mac} (null: absent) is the request's MAC; in time that does not depend on where it differs. */
    public static boolean requestVerifies(SecretKey key, String target, String nonce, String server, String mac) {
        return nonce != null && mac != null && equal(request(key, target, nonce, server), mac);
    }

    /** Whether {@code mac} (null: absent) is the reply's MAC for the request's nonce; in constant time, as above. */
    public static boolean replyVerifies(SecretKey key, String nonce, String server, String mac) {
        return mac != null && equal(reply(key, nonce, server), mac);
    }

    private static String mac(SecretKey key, String message) {
        byte[] hash = JobTokenSecretManager.computeHash(message.getBytes(StandardCharsets.UTF_8), key);
        return Base64.getEncoder().encodeToString(hash);
    }

    private static boolean equal(String expected, String actual) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.ISO_8859_1),
                actual.getBytes(StandardCharsets.ISO_8859_1));
    }
}
