package io.hadooptipc.bench.common;

import io.hadooptipc.tipc.TipcSelectionKey;
import io.hadooptipc.tipc.TipcSelector;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcSocketOptions;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The incast benchmarks' Java receiver: one thread, non-blocking channels on a selector, the rounds of
 * incast_bench.c's receiver (a 4-byte request on every connection, then every partition read to its last byte).
 * Over TIPC our binding ({@link TipcSelector}), over TCP the JDK's {@link Selector}.
 */
public abstract class IncastReceiver implements Closeable {
    /**
     * Rounds that compile the read path before anything is measured: C2 compiles a method after some 10,000 calls,
     * 1,000 rounds at 1:16 make 16,000 reads. The C receiver is compiled ahead of time, and a shuffle server's JVM
     * runs hot.
     */
    public static final int JIT_WARM_UP_ROUNDS = 1000;
    private final ByteChannel[] channels;
    private final Closeable selector;
    private final int[] remaining;
    private final ByteBuffer request = ByteBuffer.allocateDirect(Integer.BYTES).order(ByteOrder.nativeOrder());
    private final ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
    private int pending;

    private IncastReceiver(ByteChannel[] channels, Closeable selector) {
        this.channels = channels;
        this.selector = selector;
        this.remaining = new int[channels.length];
    }

    /** Connects to TIPC service {type, node} of every node, a connection per entry. */
    public static IncastReceiver tipc(int type, int[] nodes) throws IOException {
        return Tipc.connect(type, nodes);
    }

    /** Connects to PORT of ADDRESS_PREFIX + node for every node, a connection per entry. */
    public static IncastReceiver tcp(String addressPrefix, int port, int[] nodes) throws IOException {
        return Tcp.connect(addressPrefix, port, nodes);
    }

    /** Waits until channels are readable and drains them. */
    abstract void awaitReadable() throws IOException;

    /** Drains the channels of the keys a select left selected; each key's attachment is its channel's index. */
    final <K> void drainSelected(Set<K> selected, Function<K, Object> attachment) throws IOException {
        for (K key : selected) {
            drain((Integer) attachment.apply(key));
        }
        selected.clear();
    }

    /** One round: its seconds from the first request to the last byte of the last partition. */
    public double round(int size) throws IOException {
        long start = System.nanoTime();
        for (int i = 0; i < channels.length; i++) {
            ChannelIo.writeFully(channels[i], request.clear().putInt(size).flip());
            remaining[i] = size;
        }
        for (pending = channels.length; pending > 0; ) {
            awaitReadable();
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** ROUNDS rounds, started PERIOD_MICROS apart if positive, and the machine's CPU time over them. */
    public IncastRounds rounds(int size, int rounds, long periodMicros) throws IOException {
        double[] seconds = new double[rounds];
        CpuJiffies before = CpuJiffies.read();
        long next = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            seconds[r] = round(size);
            if (periodMicros > 0) {
                next += periodMicros * 1000;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                } else {
                    next = System.nanoTime(); // overran: no catching up in a burst, as in the C receiver
                }
            }
        }
        return new IncastRounds(seconds, CpuJiffies.read().since(before));
    }

    private void drain(int i) throws IOException {
        int n = channels[i].read(sink.clear().limit(remaining[i]));
        if (n < 0) {
            throw new IOException("sender " + i + " closed its connection");
        }
        remaining[i] -= n;
        if (n > 0 && remaining[i] == 0) {
            pending--;
        }
    }

    @Override
    public void close() throws IOException {
        selector.close();
        for (ByteChannel c : channels) {
            c.close();
        }
    }

    private static final class Tipc extends IncastReceiver {
        private final TipcSelector selector;

        private Tipc(TipcSocketChannel[] channels, TipcSelector selector) {
            super(channels, selector);
            this.selector = selector;
        }

        static Tipc connect(int type, int[] nodes) throws IOException {
            TipcSocketChannel[] channels = new TipcSocketChannel[nodes.length];
            TipcSelector selector = TipcSelector.open();
            for (int i = 0; i < nodes.length; i++) {
                channels[i] = TipcSocketChannel.open(TipcServiceAddress.of(type, nodes[i]));
                channels[i].setOption(TipcSocketOptions.NODELAY, true); // as the C receiver
                selector.register(channels[i].configureBlocking(false), SelectionKey.OP_READ, i);
            }
            return new Tipc(channels, selector);
        }

        @Override
        void awaitReadable() throws IOException {
            selector.select();
            drainSelected(selector.selectedKeys(), TipcSelectionKey::attachment);
        }
    }

    private static final class Tcp extends IncastReceiver {
        private final Selector selector;

        private Tcp(SocketChannel[] channels, Selector selector) {
            super(channels, selector);
            this.selector = selector;
        }

        static Tcp connect(String addressPrefix, int port, int[] nodes) throws IOException {
            SocketChannel[] channels = new SocketChannel[nodes.length];
            Selector selector = Selector.open();
            for (int i = 0; i < nodes.length; i++) {
                channels[i] = SocketChannel.open(new InetSocketAddress(addressPrefix + nodes[i], port));
                channels[i].setOption(StandardSocketOptions.TCP_NODELAY, true); // as the C receiver
                channels[i].configureBlocking(false).register(selector, SelectionKey.OP_READ, i);
            }
            return new Tcp(channels, selector);
        }

        @Override
        void awaitReadable() throws IOException {
            selector.select();
            drainSelected(selector.selectedKeys(), SelectionKey::attachment);
        }
    }
}
