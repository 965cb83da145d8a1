package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcException;
import io.hadooptipc.tipc.TipcSocketChannel;
import io.hadooptipc.tipc.TipcSocketOptions;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/** Shuffle streams over AF_TIPC: a {@link TipcSocketChannel} to the name's service address. */
final class TipcStreamTransport implements StreamTransport {
    private final int serviceType;

    TipcStreamTransport(int serviceType) {
        this.serviceType = serviceType;
    }

    @Override
    public ShuffleStream open(ShuffleServiceName name, String host, Timeouts timeouts) throws IOException {
        TipcSocketChannel channel = TipcSocketChannel.open();
        try {
            if (timeouts.connectMillis() > 0) {
                channel.setOption(TipcSocketOptions.CONNECT_TIMEOUT, timeouts.connectMillis());
            }
            channel.connect(name.tipcAddress(serviceType));
            channel.configureBlocking(false); // reads and writes wait in poll(2), where their timeouts apply
            return new TipcStream(channel, timeouts);
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (e instanceof TipcException t && t.errno() == TipcException.EHOSTUNREACH) {
                throw new ServiceNotPublishedException(name, t);
            }
            throw e;
        }
    }

    private record TipcStream(TipcSocketChannel channel, Timeouts timeouts) implements ShuffleStream {

        @Override
        public int read(ByteBuffer dst) throws IOException {
            int n;
            do {
                if (!channel.awaitReadable(forPoll(timeouts.readMillis()))) {
                    throw new SocketTimeoutException("TIPC read timed out after " + timeouts.readMillis() + " ms");
                }
                n = channel.read(dst);
            } while (n == 0 && dst.hasRemaining());
            return n;
        }

        @Override
        public void writeFully(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                if (channel.write(src) == 0 && !channel.awaitWritable(forPoll(timeouts.writeMillis()))) {
                    throw new SocketTimeoutException("TIPC write timed out after " + timeouts.writeMillis() + " ms");
                }
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        private static int forPoll(int millis) {
            return millis > 0 ? millis : -1;
        }
    }
}
