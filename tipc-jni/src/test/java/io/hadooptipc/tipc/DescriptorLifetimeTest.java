package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** When a channel's descriptor number is really closed, on AF_UNIX pairs (see {@link UnixSockets}). */
class DescriptorLifetimeTest {

    /** What the number points at ("socket:[inode]"), or null when it is closed. */
    private static String descriptorTarget(int fd) throws IOException {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        } catch (NoSuchFileException closed) {
            return null;
        }
    }

    /**
     * Whether the number still names the same open file; a closed number may be taken at once by another thread of
     * the JVM, so the file it names tells, not whether it exists.
     */
    private static boolean stillOpen(int fd, String target) throws IOException {
        return target.equals(descriptorTarget(fd));
    }

    @Test
    void closeShutsDownAtOnceButKeepsTheNumberUntilTheLastCallLeaves() throws Exception {
        TipcSocketChannel[] pair = UnixSockets.pair();
        TipcSocketChannel channel = pair[0];
        try (TipcSocketChannel peer = pair[1]) {
            String target = descriptorTarget(channel.fd);
            channel.begin(); // as a thread inside recv would
            channel.close();
            assertFalse(channel.isOpen());
            assertThrows(ClosedChannelException.class, channel::begin, "no new call on a closed channel");
            assertEquals(-1, peer.read(ByteBuffer.allocate(1)), "the peer sees end of stream at once");
            assertTrue(stillOpen(channel.fd, target), "the number stays taken while a call is in flight");
            channel.end();
            assertFalse(stillOpen(channel.fd, target), "the last call out closed it");
        }
    }

    @Test
    void aRegisteredChannelIsClosedWhenTheSelectorHasLetGoOfIt() throws Exception {
        TipcSocketChannel[] pair = UnixSockets.pair();
        TipcSocketChannel channel = pair[0];
        try (TipcSelector selector = TipcSelector.open(); TipcSocketChannel peer = pair[1]) {
            TipcSelectionKey key = selector.register(channel.configureBlocking(false), SelectionKey.OP_READ, null);
            String target = descriptorTarget(channel.fd);
            channel.close();
            assertFalse(key.isValid());
            assertTrue(stillOpen(channel.fd, target), "still in the epoll set until the selecting thread removes it");
            selector.selectNow();
            assertFalse(stillOpen(channel.fd, target));
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
            String target = descriptorTarget(channel.fd);
            channel.close();
            assertFalse(stillOpen(channel.fd, target), "no selector holds it any more");
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
        String target = descriptorTarget(fd);
        try {
            assertFalse(listener.isOpen());
            assertThrows(ClosedChannelException.class, listener::begin);
            listener.close();
            listener = null;
            for (int i = 0; i < 20; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertTrue(stillOpen(fd, target), "the taker owns the number now");
        } finally {
            UnixSockets.close(fd);
        }
        assertFalse(stillOpen(fd, target));
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
