package io.hadooptipc.shuffle;

import io.hadooptipc.testbed.ShuffleWire;
import org.junit.jupiter.api.Test;

import javax.crypto.SecretKey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChannelBindingTest {
    private static final SecretKey KEY = ShuffleWire.key("job token secret");
    private static final String TARGET = "/mapOutput?job=job_1_0001&reduce=0&map=attempt_1_0001_m_000000_0";
    private static final String SERVER = "tipc:<1001002:3232235521>";
    private static final String IMPOSTOR = "tipc:<1001003:17>";

    @Test
    void aRequestVerifiesOnlyForItsTargetNonceSocketAndJobToken() {
        String nonce = ChannelBinding.nonce();
        String mac = ChannelBinding.request(KEY, TARGET, nonce, SERVER);
        assertTrue(ChannelBinding.requestVerifies(KEY, TARGET, nonce, SERVER, mac));
        assertFalse(ChannelBinding.requestVerifies(KEY, TARGET, nonce, IMPOSTOR, mac), "relayed: bound to the relay's socket");
        assertFalse(ChannelBinding.requestVerifies(KEY, TARGET.replace("m_000000", "m_000001"), nonce, SERVER, mac),
                "another map output");
        assertFalse(ChannelBinding.requestVerifies(KEY, TARGET, ChannelBinding.nonce(), SERVER, mac), "another nonce");
        assertFalse(ChannelBinding.requestVerifies(ShuffleWire.key("another job"), TARGET, nonce, SERVER, mac),
                "another job's token");
        assertFalse(ChannelBinding.requestVerifies(KEY, TARGET, nonce, SERVER, null), "no MAC");
        assertFalse(ChannelBinding.requestVerifies(KEY, TARGET, null, SERVER, mac), "no nonce");
        assertFalse(ChannelBinding.requestVerifies(KEY, TARGET, nonce, SERVER, mac.substring(1)), "cut short");
    }

    @Test
    void aReplyVerifiesOnlyForItsNonceAndSocket() {
        String nonce = ChannelBinding.nonce();
        String mac = ChannelBinding.reply(KEY, nonce, SERVER);
        assertTrue(ChannelBinding.replyVerifies(KEY, nonce, SERVER, mac));
        assertFalse(ChannelBinding.replyVerifies(KEY, nonce, IMPOSTOR, mac), "the server's reply relayed by another socket");
        assertFalse(ChannelBinding.replyVerifies(KEY, ChannelBinding.nonce(), SERVER, mac), "an earlier request's reply");
        assertFalse(ChannelBinding.replyVerifies(ShuffleWire.key("another job"), nonce, SERVER, mac), "another job's token");
        assertFalse(ChannelBinding.replyVerifies(KEY, nonce, SERVER, null), "no reply binding");
    }

    /** A request's MAC is never a valid reply, or the reverse: an impostor cannot echo one as the other. */
    @Test
    void requestAndReplyMacsAreOfDifferentMessages() {
        String nonce = ChannelBinding.nonce();
        assertNotEquals(ChannelBinding.request(KEY, "", nonce, SERVER), ChannelBinding.reply(KEY, nonce, SERVER));
        assertFalse(ChannelBinding.replyVerifies(KEY, nonce, SERVER, ChannelBinding.request(KEY, "", nonce, SERVER)));
    }

    @Test
    void noncesAreSixteenFreshBytes() {
        String nonce = ChannelBinding.nonce();
        assertEquals(16, java.util.Base64.getDecoder().decode(nonce).length);
        assertNotEquals(nonce, ChannelBinding.nonce());
    }
}
