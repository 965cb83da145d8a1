package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.Tipc;
import io.hadooptipc.tipc.TipcAddress;
import io.hadooptipc.tipc.TipcException;
import io.hadooptipc.tipc.TipcServiceRange;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcSocketAddress;
import io.hadooptipc.tipc.TipcSocketOptions;
import io.hadooptipc.tipc.TipcTopologyEvent;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Shuffle streams over AF_TIPC: a {@link TipcSocketChannel} to the name's service address. */
final class TipcStreamTransport implements StreamTransport {
    private final int serviceType;

    TipcStreamTransport(int serviceType) {
        this.serviceType = serviceType;
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        return open(name, name.tipcAddress(serviceType), timeouts);
    }

    @Override
    public List<TipcSocketAddress> publications(ShuffleServiceName name) throws IOException {
        List<TipcSocketAddress> sockets = new ArrayList<>();
        for (TipcTopologyEvent e : Tipc.bindings(TipcServiceRange.of(name.tipcAddress(serviceType)))) {
            if (!sockets.contains(e.socket())) {
                sockets.add(e.socket());
            }
        }
        return sockets;
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, TipcSocketAddress publication, String host, Timeouts timeouts)
            throws IOException {
        return open(name, publication, timeouts);
    }

    private ShuffleStream open(ShuffleServiceName name, TipcAddress server, Timeouts timeouts) throws IOException {
        TipcSocketChannel channel = TipcSocketChannel.open();
        try {
            if (timeouts.connectMillis() > 0) {
                channel.setOption(TipcSocketOptions.CONNECT_TIMEOUT, timeouts.connectMillis());
            }
            channel.connect(server);
            channel.setOption(TipcSocketOptions.NODELAY, true); // a request goes out whole at once, not held for more
            // Blocking reads and writes whose timeouts the kernel keeps: one recv(2) per arrival, no poll(2) before it.
            channel.setOption(TipcSocketOptions.READ_TIMEOUT, timeouts.readMillis());
            channel.setOption(TipcSocketOptions.WRITE_TIMEOUT, timeouts.writeMillis());
            // The socket the kernel connected us to, whoever bound the name: read once, named in every request.
            return new TipcStream(channel, channel.getPeerAddress().toString(), timeouts);
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (e instanceof TipcException && ((TipcException) e).errno() == TipcException.EHOSTUNREACH) {
                TipcException t = (TipcException) e;
                throw new ServiceNotPublishedException(name, t);
            }
            throw e;
        }
    }

    private static final class TipcStream implements ShuffleStream {
        private final TipcSocketChannel channel;
        private final String server;
        private final Timeouts timeouts;

        private TipcStream(TipcSocketChannel channel, String server, Timeouts timeouts) {
            this.channel = channel;
            this.server = server;
            this.timeouts = timeouts;
        }

        /** A blocking read returns nothing only when the read timeout passed. */
        @Override
        public int read(ByteBuffer dst) throws IOException {
            int n = channel.read(dst);
            if (n == 0 && dst.hasRemaining()) {
                throw new SocketTimeoutException("TIPC read timed out after " + timeouts.readMillis() + " ms");
            }
            return n;
        }

        /** A blocking write sends nothing only when the write timeout passed. */
        @Override
        public void writeFully(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                if (channel.write(src) == 0) {
                    throw new SocketTimeoutException("TIPC write timed out after " + timeouts.writeMillis() + " ms");
                }
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        public TipcSocketChannel channel() {
            return channel;
        }

        public String server() {
            return server;
        }

        public Timeouts timeouts() {
            return timeouts;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof TipcStream)) {
                return false;
            }
            TipcStream that = (TipcStream) o;
            return Objects.equals(channel, that.channel) && Objects.equals(server, that.server)
                    && Objects.equals(timeouts, that.timeouts);
        }

        @Override
        public int hashCode() {
            return Objects.hash(channel, server, timeouts);
        }

        @Override
        public String toString() {
            return "TipcStream[channel=" + channel + ", server=" + server + ", timeouts=" + timeouts + "]";
        }
    }
}
