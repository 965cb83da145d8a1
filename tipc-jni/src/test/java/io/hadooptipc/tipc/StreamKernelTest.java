package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static io.hadooptipc.testbed.Testbed.start;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SOCK_STREAM channels on a real TIPC kernel, within one node and from n1 to n2. */
@Tag("tipc-kernel")
class StreamKernelTest {

    /** Accepts one connection, echoes everything it reads until end of stream, and returns the byte count. */
    private static Future<Long> echoServer(String node, TipcServerSocketChannel server) {
        return start(node, () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
                long total = 0;
                for (int n; (n = c.read(buf.clear())) > 0; total += n) {
                    c.writeFully(buf.flip());
                }
                return total;
            }
        });
    }

    private static TipcServerSocketChannel bound(String node, TipcServiceAddress name) throws Exception {
        return on(node, () -> TipcServerSocketChannel.open().bind(name));
    }

    @Test
    void echoWithinOneNode() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20001, 1);
        Future<Long> served = echoServer("n1", bound("n1", name));
        byte[] reply = on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                c.writeFully(ByteBuffer.wrap("hello, tipc".getBytes()));
                ByteBuffer in = ByteBuffer.allocate(11);
                while (in.hasRemaining() && c.read(in) > 0) {
                    // heap buffer on purpose: the copy path through a direct buffer
                }
                return in.array();
            }
        });
        assertArrayEquals("hello, tipc".getBytes(), reply);
        assertEquals(11L, Testbed.get(served));
    }

    @Test
    void echoAcrossTheLinkFromN1ToN2() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20002, 1);
        Future<Long> served = echoServer("n2", bound("n2", name));
        byte[] sent = new byte[300_000];
        new Random(1).nextBytes(sent);
        int n1 = Testbed.on("n1", Tipc::ownNodeAddress);
        byte[] received = on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                assertEquals(name, c.getRemoteAddress());
                assertEquals(n1, c.getLocalAddress().node());
                Future<?> writer = start("n1", () -> {
                    c.writeFully(ByteBuffer.wrap(sent));
                    return null;
                });
                ByteBuffer in = ByteBuffer.allocateDirect(sent.length);
                while (in.hasRemaining()) {
                    assertTrue(c.read(in) > 0, "stream ended early");
                }
                Testbed.get(writer);
                byte[] out = new byte[sent.length];
                in.flip().get(out);
                return out;
            }
        });
        assertArrayEquals(sent, received);
        assertEquals((long) sent.length, Testbed.get(served));
    }

    /** A blocking read with READ_TIMEOUT returns nothing once the timeout passed, and the next byte when it comes. */
    @Test
    void aBlockingReadGivesUpAfterTheReadTimeoutAndReadsWhatComesLater() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20007, 1);
        TipcServerSocketChannel server = bound("n2", name);
        Future<Void> silentThenOneByte = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                c.read(ByteBuffer.allocate(1)); // the client's go-ahead, after its timed-out read
                c.writeFully(ByteBuffer.wrap(new byte[] {42}));
                c.read(ByteBuffer.allocate(1)); // until the client closes
                return null;
            }
        });
        on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                c.setOption(TipcSocketOptions.READ_TIMEOUT, 300);
                ByteBuffer one = ByteBuffer.allocateDirect(1);
                long start = System.nanoTime();
                assertEquals(0, c.read(one), "nothing was sent");
                long waitedMillis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(waitedMillis >= 250 && waitedMillis < 30_000, "waited " + waitedMillis + " ms");
                c.writeFully(ByteBuffer.wrap(new byte[] {1}));
                assertEquals(1, c.read(one));
                assertEquals(42, one.get(0));
                assertThrows(UnsupportedOperationException.class, () -> c.getOption(TipcSocketOptions.READ_TIMEOUT));
                return null;
            }
        });
        Testbed.get(silentThenOneByte);
    }

    @Test
    void acceptedChannelKnowsThePeerSocket() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20003, 1);
        TipcServerSocketChannel server = bound("n2", name);
        Future<TipcAddress> peer = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                return c.getRemoteAddress();
            }
        });
        TipcSocketAddress clientSocket = on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                TipcSocketAddress local = c.getLocalAddress();
                c.read(ByteBuffer.allocate(1)); // until the server closes
                return local;
            }
        });
        assertEquals(clientSocket, Testbed.get(peer));
    }

    @Test
    void theConnectedPeerIsTheAcceptedSocketNotTheName() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20005, 1);
        TipcServerSocketChannel server = bound("n2", name);
        Future<TipcSocketAddress> accepted = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                TipcSocketAddress local = c.getLocalAddress();
                c.read(ByteBuffer.allocate(1)); // until the client closes
                return local;
            }
        });
        TipcSocketAddress peer = on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                return c.getPeerAddress();
            }
        });
        assertEquals(Testbed.get(accepted), peer);
    }

    @Test
    void connectToAnUnboundServiceNamesTheCallAddressAndErrno() throws Exception {
        TipcServiceAddress nobody = TipcServiceAddress.of(20099, 1);
        TipcException e = assertThrows(TipcException.class, () -> on("n1", () -> TipcSocketChannel.open(nobody)));
        assertEquals(TipcException.EHOSTUNREACH, e.errno());
        assertEquals(nobody, e.address().orElseThrow());
        assertTrue(e.getMessage().startsWith("connect to tipc:{20099,1} failed: EHOSTUNREACH (errno 113"), e.getMessage());
    }

    @Test
    void readReturnsEndOfStreamWhenThePeerCloses() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20004, 1);
        TipcServerSocketChannel server = bound("n2", name);
        Future<?> closer = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                c.writeFully(ByteBuffer.wrap(new byte[] {42}));
                return null;
            }
        });
        int[] reads = on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open(name)) {
                ByteBuffer b = ByteBuffer.allocate(8);
                int first = c.read(b);
                int second = c.read(b);
                return new int[] {first, b.get(0), second};
            }
        });
        Testbed.get(closer);
        assertArrayEquals(new int[] {1, 42, -1}, reads);
    }

    @Test
    void socketOptionsReachTheKernel() throws Exception {
        on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.open()) {
                c.setOption(TipcSocketOptions.IMPORTANCE, TipcSocketOptions.HIGH_IMPORTANCE);
                assertEquals(TipcSocketOptions.HIGH_IMPORTANCE, c.getOption(TipcSocketOptions.IMPORTANCE));
                c.setOption(TipcSocketOptions.CONNECT_TIMEOUT, 1234);
                assertEquals(1234, c.getOption(TipcSocketOptions.CONNECT_TIMEOUT));
                TipcException streamDrop = assertThrows(TipcException.class,
                        () -> c.setOption(TipcSocketOptions.SRC_DROPPABLE, true));
                assertEquals(92, streamDrop.errno(), "a byte stream cannot drop messages: ENOPROTOOPT");
                c.setOption(TipcSocketOptions.NODELAY, true);
                c.setOption(StandardSocketOptions.SO_RCVBUF, 65536);
                assertEquals(2 * 65536, c.getOption(StandardSocketOptions.SO_RCVBUF), "Linux doubles it for overhead");
                TipcException e = assertThrows(TipcException.class,
                        () -> c.setOption(TipcSocketOptions.IMPORTANCE, 9));
                assertEquals(TipcException.EINVAL, e.errno());
                assertTrue(e.getMessage().startsWith("setsockopt(TIPC_IMPORTANCE=9) failed: EINVAL"), e.getMessage());
            }
            try (TipcDatagramChannel d = TipcDatagramChannel.open()) {
                d.setOption(TipcSocketOptions.SRC_DROPPABLE, true);
                assertEquals(true, d.getOption(TipcSocketOptions.SRC_DROPPABLE));
                d.setOption(TipcSocketOptions.DEST_DROPPABLE, false);
                assertEquals(false, d.getOption(TipcSocketOptions.DEST_DROPPABLE));
            }
            return null;
        });
    }

    @Test
    void nonBlockingConnectCompletesThroughTheSelector() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20005, 1);
        Future<Long> served = echoServer("n2", bound("n2", name));
        String reply = on("n1", () -> {
            try (TipcSelector selector = TipcSelector.open();
                    TipcSocketChannel c = TipcSocketChannel.open().configureBlocking(false)) {
                boolean immediate = c.connect(name);
                TipcSelectionKey key = selector.register(c, immediate ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, "client");
                if (!immediate) {
                    assertEquals(1, selector.select(10_000));
                    assertTrue(key.isConnectable());
                    assertTrue(c.finishConnect());
                }
                selector.selectedKeys().clear();
                c.writeFully(ByteBuffer.wrap("ping".getBytes()));
                key.interestOps(SelectionKey.OP_READ);
                ByteBuffer in = ByteBuffer.allocate(4);
                while (in.hasRemaining()) {
                    assertTrue(selector.select(10_000) > 0 || !selector.selectedKeys().isEmpty(), "no reply");
                    assertEquals("client", key.attachment());
                    c.read(in);
                    selector.selectedKeys().clear();
                }
                return new String(in.array());
            }
        });
        assertEquals("ping", reply);
        assertEquals(4L, Testbed.get(served));
    }

    @Test
    void sendfileCarriesAFileAcrossTheLink(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("map-output");
        byte[] content = new byte[8 << 20];
        new Random(7).nextBytes(content);
        Files.write(file, content);
        CRC32C expected = new CRC32C();
        expected.update(content);

        TipcServiceAddress name = TipcServiceAddress.of(20006, 1);
        TipcServerSocketChannel server = bound("n2", name);
        Future<Long> receivedCrc = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                CRC32C crc = new CRC32C();
                ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
                while (c.read(buf.clear()) > 0) {
                    crc.update(buf.flip());
                }
                return crc.getValue();
            }
        });
        on("n1", () -> {
            try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r");
                    TipcSocketChannel c = TipcSocketChannel.open(name)) {
                long position = 0;
                while (position < content.length) {
                    position += c.transferFrom(in.getFD(), position, content.length - position);
                }
            }
            return null;
        });
        assertEquals(expected.getValue(), Testbed.get(receivedCrc));
    }

    @Test
    void closedChannelRefusesIo() throws Exception {
        on("n1", () -> {
            TipcSocketChannel c = TipcSocketChannel.open();
            c.close();
            assertInstanceOf(java.nio.channels.ClosedChannelException.class,
                    assertThrows(java.io.IOException.class, () -> c.read(ByteBuffer.allocate(1))));
            return null;
        });
    }
}
