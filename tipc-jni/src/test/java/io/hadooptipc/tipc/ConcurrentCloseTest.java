package io.hadooptipc.tipc;

import java.io.FileInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * close() from another thread during read, write, sendfile, accept and select, on AF_UNIX
 * sockets (see {@link UnixSockets}); {@code ConcurrentCloseKernelTest} runs the same races
 * on TIPC sockets in the testbed. Iterations: {@value #DEFAULT_ITERATIONS} each, or the
 * system property {@code tipc.race.iterations}.
 */
class ConcurrentCloseTest {
    static final int DEFAULT_ITERATIONS = 10_000;
    static final int ITERATIONS = Integer.getInteger("tipc.race.iterations", DEFAULT_ITERATIONS);

    /** Makes a connected pair of channels: [victim, peer]. */
    interface Pairs {
        TipcSocketChannel[] open() throws Exception;
    }

    @Test
    void closeDuringRead() throws Exception {
        closeDuringRead(UnixSockets::pair, ITERATIONS);
    }

    @Test
    void closeDuringWrite() throws Exception {
        closeDuringWrite(UnixSockets::pair, ITERATIONS);
    }

    @Test
    void closeDuringSendfile(@TempDir Path dir) throws Exception {
        closeDuringSendfile(UnixSockets::pair, dir, ITERATIONS);
    }

    @Test
    void closeDuringAccept() throws Exception {
        closeDuringAccept(UnixSockets::listening, ITERATIONS);
    }

    @Test
    void closeDuringSelect() throws Exception {
        closeDuringSelect(UnixSockets::pair, ITERATIONS);
    }

    static void closeDuringRead(Pairs pairs, int iterations) throws Exception {
        try (CloseRace race = new CloseRace()) {
            for (int i = 0; i < iterations; i++) {
                TipcSocketChannel[] pair = pairs.open();
                TipcSocketChannel victim = pair[0];
                TipcSocketChannel peer = pair[1];
                Future<?> pump = race.helper(pump(peer));
                race.closeDuring("read", victim, () -> {
                    ByteBuffer buf = ByteBuffer.allocate(4096);
                    while (victim.read(buf.clear()) >= 0) {
                        // until the close ends it
                    }
                    return null;
                });
                peer.close();
                race.finish(pump);
            }
        }
    }

    static void closeDuringWrite(Pairs pairs, int iterations) throws Exception {
        try (CloseRace race = new CloseRace()) {
            for (int i = 0; i < iterations; i++) {
                TipcSocketChannel[] pair = pairs.open();
                TipcSocketChannel victim = pair[0];
                TipcSocketChannel peer = pair[1];
                Future<?> drain = race.helper(drain(peer));
                race.closeDuring("write", victim, () -> {
                    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
                    while (true) {
                        victim.write(buf.clear());
                    }
                });
                peer.close();
                race.finish(drain);
            }
        }
    }

    static void closeDuringSendfile(Pairs pairs, Path dir, int iterations) throws Exception {
        Path file = Files.write(dir.resolve("sent"), new byte[1 << 20]);
        try (CloseRace race = new CloseRace(); FileInputStream in = new FileInputStream(file.toFile())) {
            for (int i = 0; i < iterations; i++) {
                TipcSocketChannel[] pair = pairs.open();
                TipcSocketChannel victim = pair[0];
                TipcSocketChannel peer = pair[1];
                Future<?> drain = race.helper(drain(peer));
                race.closeDuring("sendfile", victim, () -> {
                    while (true) {
                        victim.transferFrom(in.getFD(), 0, 1 << 20);
                    }
                });
                peer.close();
                race.finish(drain);
            }
        }
    }

    /** Makes a listening channel nobody connects to. */
    interface Listeners {
        TipcServerSocketChannel open() throws Exception;
    }

    static void closeDuringAccept(Listeners listeners, int iterations) throws Exception {
        try (CloseRace race = new CloseRace()) {
            for (int i = 0; i < iterations; i++) {
                TipcServerSocketChannel victim = listeners.open();
                race.closeDuring("accept", victim, () -> {
                    while (true) {
                        TipcSocketChannel accepted = victim.accept();
                        if (accepted != null) {
                            accepted.close();
                        }
                    }
                });
            }
        }
    }

    /**
     * A selecting thread reads from three channels whose peers keep writing, while this
     * thread closes the channels and the selector, in either order.
     */
    static void closeDuringSelect(Pairs pairs, int iterations) throws Exception {
        try (CloseRace race = new CloseRace()) {
            for (int i = 0; i < iterations; i++) {
                TipcSelector selector = TipcSelector.open();
                List<TipcSocketChannel> victims = new ArrayList<>();
                List<Future<?>> pumps = new ArrayList<>();
                List<TipcSocketChannel> peers = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    TipcSocketChannel[] pair = pairs.open();
                    victims.add(pair[0]);
                    peers.add(pair[1]);
                    selector.register(pair[0].configureBlocking(false), SelectionKey.OP_READ, null);
                    pumps.add(race.helper(pump(pair[1])));
                }
                boolean selectorFirst = i % 2 == 0;
                race.closeDuring("select", () -> {
                    if (selectorFirst) {
                        selector.close();
                    }
                    for (TipcSocketChannel victim : victims) {
                        victim.close();
                    }
                    selector.close();
                }, () -> {
                    ByteBuffer buf = ByteBuffer.allocate(1024);
                    while (true) {
                        selector.select();
                        for (TipcSelectionKey key : selector.selectedKeys()) {
                            try {
                                if (key.isReadable() && ((TipcSocketChannel) key.channel()).read(buf.clear()) < 0) {
                                    key.cancel();
                                }
                            } catch (CancelledKeyException | ClosedChannelException e) {
                                // closed by the other thread between select and here: what a loop must expect
                            }
                        }
                        selector.selectedKeys().clear();
                    }
                });
                for (int c = 0; c < 3; c++) {
                    peers.get(c).close();
                    race.finish(pumps.get(c));
                }
            }
        }
    }

    /** Writes into {@code peer} until that fails. */
    static Callable<Void> pump(TipcSocketChannel peer) {
        return () -> {
            ByteBuffer buf = ByteBuffer.allocate(1024);
            while (true) {
                peer.write(buf.clear());
            }
        };
    }

    /** Reads from {@code peer} until end of stream or failure. */
    static Callable<Void> drain(TipcSocketChannel peer) {
        return () -> {
            ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
            while (peer.read(buf.clear()) >= 0) {
                // discard
            }
            return null;
        };
    }
}
