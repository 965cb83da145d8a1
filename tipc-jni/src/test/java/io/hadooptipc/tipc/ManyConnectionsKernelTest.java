package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static io.hadooptipc.testbed.Testbed.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One selector thread on n2 serves 1000 connections from n1, all open at once. */
@Tag("tipc-kernel")
class ManyConnectionsKernelTest {
    private static final int CONNECTIONS = 1000;
    private static final int MESSAGE = 64;

    /** Echo server: returns the largest number of connections it held open at the same time. */
    private static int serve(TipcServerSocketChannel server) throws Exception {
        try (server; TipcSelector selector = TipcSelector.open()) {
            selector.register(server.configureBlocking(false), SelectionKey.OP_ACCEPT, null);
            int open = 0;
            int mostOpen = 0;
            int finished = 0;
            while (finished < CONNECTIONS) {
                selector.select(30_000);
                for (Iterator<TipcSelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    TipcSelectionKey key = it.next();
                    it.remove();
                    if (key.isAcceptable()) {
                        for (TipcSocketChannel c; (c = server.accept()) != null; ) {
                            selector.register(c.configureBlocking(false), SelectionKey.OP_READ, ByteBuffer.allocate(MESSAGE));
                            mostOpen = Math.max(mostOpen, ++open);
                        }
                    } else if (key.isReadable()) {
                        TipcSocketChannel c = (TipcSocketChannel) key.channel();
                        ByteBuffer buf = (ByteBuffer) key.attachment();
                        if (c.read(buf) < 0) {
                            c.close();
                            open--;
                            finished++;
                        } else if (!buf.hasRemaining()) {
                            c.writeFully(buf.flip());
                            buf.clear();
                        }
                    }
                }
            }
            return mostOpen;
        }
    }

    @Test
    void thousandConcurrentConnectionsOnOneServerThread() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20032, 1);
        TipcServerSocketChannel server = on("n2", () -> TipcServerSocketChannel.open().bind(name));
        Future<Integer> served = start("n2", () -> serve(server));

        int echoed = on("n1", () -> {
            List<TipcSocketChannel> clients = new ArrayList<>();
            try (TipcSelector selector = TipcSelector.open()) {
                for (int i = 0; i < CONNECTIONS; i++) {
                    TipcSocketChannel c = TipcSocketChannel.open().configureBlocking(false);
                    clients.add(c);
                    c.connect(name);
                    selector.register(c, SelectionKey.OP_CONNECT, i);
                }
                int connected = 0;
                while (connected < CONNECTIONS) {
                    assertTrue(selector.select(30_000) > 0, "connections stalled at " + connected);
                    for (Iterator<TipcSelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                        TipcSelectionKey key = it.next();
                        it.remove();
                        assertTrue(((TipcSocketChannel) key.channel()).finishConnect());
                        key.interestOps(SelectionKey.OP_READ);
                        connected++;
                    }
                }
                // Every connection is up before any sends: all 1000 are open on the server at once.
                for (int i = 0; i < CONNECTIONS; i++) {
                    clients.get(i).writeFully(message(i));
                }
                int ok = 0;
                ByteBuffer in = ByteBuffer.allocate(MESSAGE);
                while (ok < CONNECTIONS) {
                    assertTrue(selector.select(30_000) > 0, "echoes stalled at " + ok);
                    for (Iterator<TipcSelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                        TipcSelectionKey key = it.next();
                        it.remove();
                        TipcSocketChannel c = (TipcSocketChannel) key.channel();
                        in.clear();
                        while (in.hasRemaining() && c.read(in) > 0) {
                            // the 64-byte echo may arrive in pieces
                        }
                        assertEquals(message((Integer) key.attachment()), in.flip());
                        key.cancel();
                        ok++;
                    }
                }
                return ok;
            } finally {
                for (TipcSocketChannel c : clients) {
                    c.close();
                }
            }
        });
        assertEquals(CONNECTIONS, echoed);
        assertEquals(CONNECTIONS, Testbed.get(served), "connections open at once on the server");
    }

    private static ByteBuffer message(int i) {
        ByteBuffer b = ByteBuffer.allocate(MESSAGE);
        while (b.hasRemaining()) {
            b.putInt(i);
        }
        return b.flip();
    }
}
