package io.hadooptipc.tipc;

import static io.hadooptipc.testbed.Testbed.on;

import java.nio.file.Path;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConcurrentCloseTest}'s races on TIPC stream sockets of node n1. Under the
 * testbed's software emulation each race runs {@value #DEFAULT_ITERATIONS} times (the
 * system property {@code tipc.race.kernel.iterations} changes that); the host runs 10,000.
 */
@Tag("tipc-kernel")
class ConcurrentCloseKernelTest {
    static final int DEFAULT_ITERATIONS = 100;
    static final int ITERATIONS = Integer.getInteger("tipc.race.kernel.iterations", DEFAULT_ITERATIONS);
    private static final TipcServiceAddress PAIRS = TipcServiceAddress.of(20030, 1);
    private static final AtomicInteger NEXT_LISTENER = new AtomicInteger();

    private static TipcServerSocketChannel pairServer;

    @BeforeAll
    static void bind() throws Exception {
        pairServer = on("n1", () -> TipcServerSocketChannel.open().bind(PAIRS, TipcScope.NODE));
    }

    @AfterAll
    static void unbind() throws Exception {
        pairServer.close();
    }

    /**
     * A connected TIPC pair in n1: [client, accepted]. Called on an n1 thread. The connect
     * is non-blocking because TIPC answers it only when the server accepts.
     */
    private static TipcSocketChannel[] tipcPair() throws Exception {
        TipcSocketChannel client = TipcSocketChannel.open().configureBlocking(false);
        client.connect(PAIRS);
        TipcSocketChannel accepted = pairServer.accept();
        client.configureBlocking(true).finishConnect();
        return new TipcSocketChannel[] {client, accepted};
    }

    @Test
    void closeDuringRead() throws Exception {
        on("n1", () -> {
            ConcurrentCloseTest.closeDuringRead(ConcurrentCloseKernelTest::tipcPair, ITERATIONS);
            return null;
        });
    }

    @Test
    void closeDuringWrite() throws Exception {
        on("n1", () -> {
            ConcurrentCloseTest.closeDuringWrite(ConcurrentCloseKernelTest::tipcPair, ITERATIONS);
            return null;
        });
    }

    @Test
    void closeDuringSendfile(@TempDir Path dir) throws Exception {
        on("n1", () -> {
            ConcurrentCloseTest.closeDuringSendfile(ConcurrentCloseKernelTest::tipcPair, dir, ITERATIONS);
            return null;
        });
    }

    @Test
    void closeDuringSelect() throws Exception {
        on("n1", () -> {
            ConcurrentCloseTest.closeDuringSelect(ConcurrentCloseKernelTest::tipcPair, ITERATIONS);
            return null;
        });
    }

    /** A blocked accept on a listening TIPC socket: the kernel's accept ignores shutdown(2), our poll does not. */
    @Test
    void closeDuringBlockedAccept() throws Exception {
        on("n1", () -> {
            ConcurrentCloseTest.closeDuringAccept(() -> TipcServerSocketChannel.open()
                    .bind(TipcServiceAddress.of(20031, NEXT_LISTENER.incrementAndGet()), TipcScope.NODE), ITERATIONS);
            return null;
        });
    }

    /** Accepting while a client keeps connecting, so that the close also lands between and inside accepts. */
    @Test
    void closeDuringAcceptOfConnections() throws Exception {
        on("n1", () -> {
            try (CloseRace race = new CloseRace()) {
                for (int i = 0; i < ITERATIONS; i++) {
                    TipcServiceAddress name = TipcServiceAddress.of(20032, i);
                    TipcServerSocketChannel victim = TipcServerSocketChannel.open().bind(name, TipcScope.NODE);
                    Future<?> client = race.helper(() -> {
                        while (true) {
                            TipcSocketChannel.open(name).close(); // ends when the name is gone
                        }
                    });
                    race.closeDuring("accept", victim, () -> {
                        while (true) {
                            victim.accept().close();
                        }
                    });
                    race.finish(client);
                }
            }
            return null;
        });
    }
}
