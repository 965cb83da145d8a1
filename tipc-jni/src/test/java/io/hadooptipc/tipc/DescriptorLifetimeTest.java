package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** When a channel's descriptor number is really closed, on AF_UNIX pairs (see {@link UnixSockets}). */
class DescriptorLifetimeTest {

    private static boolean isOpenDescriptor(int fd) {
        return Files.exists(Path.of("/proc/self/fd/" + fd), LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void closeShutsDownAtOnceButKeepsTheNumberUntilTheLastCallLeaves() throws Exception {
        TipcSocketChannel[] pair = UnixSockets.pair();
        TipcSocketChannel channel = pair[0];
        try (TipcSocketChannel peer = pair[1]) {
            channel.begin(); // as a thread inside recv would
            channel.close();
            assertFalse(channel.isOpen());
            assertThrows(ClosedChannelException.class, channel::begin, "no new call on a closed channel");
            assertEquals(-1, peer.read(ByteBuffer.allocate(1)), "the peer sees end of stream at once");
            assertTrue(isOpenDescriptor(channel.fd), "the number stays taken while a call is in flight");
            channel.end();
            assertFalse(isOpenDescriptor(channel.fd), "the last call out closed it");
        }
    }

    @Test
    void aRegisteredChannelIsClosedWhenTheSelectorHasLetGoOfIt() throws Exception {
        TipcSocketChannel[] pair = UnixSockets.pair();
        TipcSocketChannel channel = pair[0];
        try (TipcSelector selector = TipcSelector.open(); TipcSocketChannel peer = pair[1]) {
            TipcSelectionKey key = selector.register(channel.configureBlocking(false), SelectionKey.OP_READ, null);
            channel.close();
            assertFalse(key.isValid());
            assertTrue(isOpenDescriptor(channel.fd), "still in the epoll set until the selecting thread removes it");
            selector.selectNow();
            assertFalse(isOpenDescriptor(channel.fd));
            assertTrue(selector.keys().isEmpty());
        }
    }

    @Test
    void closingTheSelectorLetsGoOfItsChannelsWithoutClosingThem() throws Exception {
        TipcSocketChannel[] pair = UnixSockets.pair();
        TipcSocketChannel channel = pair[0];
        try (TipcSocketChannel peer = pair[1]) {
            TipcSelector selector = TipcSelector.open();
            TipcSelectionKey key = selector.register(channel.configureBlocking(false), SelectionKey.OP_READ, null);
            selector.close();
            assertFalse(key.isValid());
            assertTrue(channel.isOpen());
            channel.configureBlocking(true);
            channel.close();
            assertFalse(isOpenDescriptor(channel.fd), "no selector holds it any more");
        }
    }

    /** Opens a pair, drops one end without closing it, and returns the other. */
    private static TipcSocketChannel peerOfADroppedChannel() {
        return UnixSockets.pair()[1];
    }

    @Test
    void aDroppedChannelIsClosedByTheCleaner() throws Exception {
        try (TipcSocketChannel peer = peerOfADroppedChannel()) {
            ByteBuffer one = ByteBuffer.allocate(1);
            boolean ended = false;
            for (int i = 0; i < 200 && !ended; i++) {
                System.gc();
                ended = peer.awaitReadable(50) && peer.read(one) == -1;
            }
            assertTrue(ended, "the peer of a dropped channel reads end of stream once the channel is collected");
        }
    }

    @Test
    void aDetachedDescriptorOutlivesItsChannelItsCloseAndItsCleaner() throws Exception {
        TipcServerSocketChannel listener = UnixSockets.listening();
        int fd = listener.detachDescriptor();
        try {
            assertFalse(listener.isOpen());
            assertThrows(ClosedChannelException.class, listener::begin);
            listener.close();
            listener = null;
            for (int i = 0; i < 20; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertTrue(isOpenDescriptor(fd), "the taker owns the number now");
        } finally {
            UnixSockets.close(fd);
        }
        assertFalse(isOpenDescriptor(fd));
    }

    @Test
    void aRegisteredChannelCannotBeDetached() throws Exception {
        try (TipcServerSocketChannel listener = UnixSockets.listening(); TipcSelector selector = TipcSelector.open()) {
            selector.register(listener.configureBlocking(false), SelectionKey.OP_ACCEPT, null);
            assertThrows(IllegalStateException.class, listener::detachDescriptor);
            assertTrue(listener.isOpen(), "a refused detach changes nothing");
        }
    }
}
