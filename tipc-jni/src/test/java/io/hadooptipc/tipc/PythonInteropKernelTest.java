package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static io.hadooptipc.testbed.Testbed.on;
import static io.hadooptipc.testbed.Testbed.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Our binding against CPython's socket.AF_TIPC, an implementation nobody here wrote, both ways. */
@Tag("tipc-kernel")
class PythonInteropKernelTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void pythonClientOnN1TalksToJavaServerOnN2() throws Exception {
        TipcServiceAddress name = TipcServiceAddress.of(20041, 1);
        TipcServerSocketChannel server = on("n2", () -> TipcServerSocketChannel.open().bind(name));
        Future<String> javaSide = start("n2", () -> {
            try (server; TipcSocketChannel c = server.accept()) {
                ByteBuffer in = ByteBuffer.allocate(100);
                c.read(in);
                String request = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
                c.writeFully(ByteBuffer.wrap(request.toUpperCase().getBytes(StandardCharsets.UTF_8)));
                return request;
            }
        });
        String script = String.join("\n",
                "import socket",
                "s = socket.socket(socket.AF_TIPC, socket.SOCK_STREAM)",
                "s.connect((socket.TIPC_ADDR_NAME, 20041, 1, 0))",
                "s.sendall(b'from python')",
                "print(s.recv(100).decode())");
        String out = Testbed.output(Testbed.exec("n1", Testbed.python(), "-c", script), WAIT);
        assertEquals("from python", Testbed.get(javaSide));
        assertEquals("FROM PYTHON", out.strip());
    }

    @Test
    void javaClientOnN1TalksToPythonServerOnN2() throws Exception {
        String script = String.join("\n",
                "import socket",
                "s = socket.socket(socket.AF_TIPC, socket.SOCK_STREAM)",
                "s.bind((socket.TIPC_ADDR_NAME, 20042, 1, 0))",
                "s.listen(1)",
                "c, peer = s.accept()",
                "data = c.recv(100)",
                "c.sendall(data[::-1])",
                "c.shutdown(socket.SHUT_RDWR)  # a bare close() is an abort in TIPC: the reader gets ECONNRESET",
                "c.close()",
                "print(' '.join(str(v) for v in peer))");
        Process python = Testbed.exec("n2", Testbed.python(), "-c", script);
        TipcServiceAddress name = TipcServiceAddress.of(20042, 1);
        Testbed.on("n1", () -> Tipc.awaitPublished(name, WAIT));
        String[] reply = on("n1", () -> {
            try (TipcSocketChannel c = openOnceListening(name)) {
                c.writeFully(ByteBuffer.wrap("abc123".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer in = ByteBuffer.allocate(100);
                while (c.read(in) > 0) {
                    // until python closes
                }
                TipcSocketAddress self = c.getLocalAddress();
                return new String[] {new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII),
                        Integer.toUnsignedString(self.ref()), Integer.toUnsignedString(self.node())};
            }
        });
        assertEquals("321cba", reply[0]);
        // CPython renders a TIPC_ADDR_ID peer as (3, node, ref, ...): it must name our socket.
        List<String> peer = List.of(Testbed.output(python, WAIT).strip().split(" "));
        assertEquals("3", peer.get(0), "addrtype TIPC_ADDR_ID: " + peer);
        assertTrue(peer.contains(reply[1]) && peer.contains(reply[2]), "python saw " + peer + ", we are ref "
                + reply[1] + " on node " + reply[2]);
    }

    @Test
    void rdmMessagesBothWays() throws Exception {
        TipcServiceAddress javaName = TipcServiceAddress.of(20043, 1);
        TipcDatagramChannel java = on("n1", () -> TipcDatagramChannel.open().bind(javaName, TipcScope.CLUSTER));
        Testbed.on("n2", () -> Tipc.awaitPublished(javaName, WAIT));
        String script = String.join("\n",
                "import socket",
                "s = socket.socket(socket.AF_TIPC, socket.SOCK_RDM)",
                "s.bind((socket.TIPC_ADDR_NAME, 20044, 1, 0))",
                "s.sendto(b'x' * 66000, (socket.TIPC_ADDR_NAME, 20043, 1, 0))",
                "data, sender = s.recvfrom(70000)",
                "print(len(data), data[:5].decode())");
        Process python = Testbed.exec("n2", Testbed.python(), "-c", script);
        on("n1", () -> {
            try (java) {
                ByteBuffer in = ByteBuffer.allocate(70000);
                TipcSocketAddress sender = java.receive(in);
                assertEquals(66000, in.position());
                java.send(ByteBuffer.wrap("hello from java".getBytes(StandardCharsets.US_ASCII)), sender);
            }
            return null;
        });
        assertEquals("15 hello", Testbed.output(python, WAIT).strip());
    }

    /** Python's bind() publishes the name before its listen(): a connect in between is refused, so try again. */
    private static TipcSocketChannel openOnceListening(TipcServiceAddress name) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                return TipcSocketChannel.open(name);
            } catch (TipcException e) {
                if (e.errno() != TipcException.ECONNREFUSED || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
