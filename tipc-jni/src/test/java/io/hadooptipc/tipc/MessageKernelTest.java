package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static io.hadooptipc.testbed.Testbed.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** SOCK_SEQPACKET and SOCK_RDM keep message boundaries and enforce the 66000-byte limit. */
@Tag("tipc-kernel")
class MessageKernelTest {
    private static final int[] SIZES = {1, 100, 4096, Tipc.MAX_MESSAGE_SIZE, 7};

    private static ByteBuffer message(int size) {
        ByteBuffer b = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            b.put((byte) (size + i));
        }
        return b.flip();
    }

    private static void assertMessage(int size, ByteBuffer received) {
        assertEquals(size, received.remaining(), "message boundary");
        assertEquals(message(size), received, "message content");
    }

    @Test
    void seqPacketKeepsBoundariesAcrossTheLink() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20011, 1);
        TipcServerSocketChannel server = on("n2", () -> TipcServerSocketChannel.openSeqPacket().bind(name));
        Future<List<ByteBuffer>> received = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                List<ByteBuffer> messages = new ArrayList<>();
                for (int i = 0; i < SIZES.length; i++) {
                    ByteBuffer b = ByteBuffer.allocateDirect(Tipc.MAX_MESSAGE_SIZE + 1000);
                    assertTrue(c.read(b) > 0);
                    messages.add(b.flip());
                }
                return messages;
            }
        });
        TipcException tooBig = on("n1", () -> {
            try (TipcSocketChannel c = TipcSocketChannel.openSeqPacket()) {
                c.connect(name);
                for (int size : SIZES) {
                    assertEquals(size, c.write(message(size)));
                }
                return assertThrows(TipcException.class, () -> c.write(message(Tipc.MAX_MESSAGE_SIZE + 1)));
            }
        });
        List<ByteBuffer> messages = Testbed.get(received);
        for (int i = 0; i < SIZES.length; i++) {
            assertMessage(SIZES[i], messages.get(i));
        }
        assertEquals(TipcException.EMSGSIZE, tooBig.errno());
        assertTrue(tooBig.getMessage().contains("at most 66000 bytes"), tooBig.getMessage());
    }

    @Test
    void rdmKeepsBoundariesAndReportsTheSender() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20012, 1);
        TipcDatagramChannel receiver = on("n2", () -> TipcDatagramChannel.open().bind(name, TipcScope.CLUSTER));
        Testbed.on("n1", () -> Tipc.awaitPublished(name, java.time.Duration.ofSeconds(10)));
        TipcSocketAddress sender = on("n1", () -> {
            try (TipcDatagramChannel c = TipcDatagramChannel.open()) {
                for (int size : SIZES) {
                    assertEquals(size, c.send(message(size), name));
                }
                TipcException e = assertThrows(TipcException.class,
                        () -> c.send(message(Tipc.MAX_MESSAGE_SIZE + 1), name));
                assertEquals(TipcException.EMSGSIZE, e.errno());
                assertTrue(e.getMessage().startsWith("sendto tipc:{20012,1} failed: EMSGSIZE"), e.getMessage());
                return c.getLocalAddress();
            }
        });
        on("n2", () -> {
            try (receiver) {
                for (int size : SIZES) {
                    ByteBuffer b = ByteBuffer.allocate(Tipc.MAX_MESSAGE_SIZE);
                    assertEquals(sender, receiver.receive(b));
                    assertMessage(size, b.flip());
                }
                receiver.configureBlocking(false);
                assertEquals(null, receiver.receive(ByteBuffer.allocate(10)), "nothing more was sent");
            }
            return null;
        });
    }

    @Test
    void rdmToARangeReachesEveryBoundSocket() throws Exception {
        TipcServiceRange group = TipcServiceRange.of(20013, 0, 10);
        TipcDatagramChannel onN2 = on("n2", () -> TipcDatagramChannel.open().bind(TipcServiceAddress.of(20013, 2), TipcScope.CLUSTER));
        TipcDatagramChannel onN3 = on("n3", () -> TipcDatagramChannel.open().bind(TipcServiceAddress.of(20013, 3), TipcScope.CLUSTER));
        Testbed.on("n1", () -> Tipc.awaitPublished(TipcServiceAddress.of(20013, 2), java.time.Duration.ofSeconds(10)));
        Testbed.on("n1", () -> Tipc.awaitPublished(TipcServiceAddress.of(20013, 3), java.time.Duration.ofSeconds(10)));
        on("n1", () -> {
            try (TipcDatagramChannel c = TipcDatagramChannel.open()) {
                return c.send(message(500), group);
            }
        });
        for (var node : List.of(java.util.Map.entry("n2", onN2), java.util.Map.entry("n3", onN3))) {
            on(node.getKey(), () -> {
                try (TipcDatagramChannel c = node.getValue()) {
                    ByteBuffer b = ByteBuffer.allocate(1000);
                    c.receive(b);
                    assertMessage(500, b.flip());
                }
                return null;
            });
        }
    }
}
