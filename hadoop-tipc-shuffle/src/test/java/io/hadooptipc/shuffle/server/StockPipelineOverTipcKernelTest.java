package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.ShuffleWire;
import io.hadooptipc.shuffle.TipcExchange;
import io.hadooptipc.shuffle.client.FetchCost;
import io.hadooptipc.tipc.Descriptors;
import io.hadooptipc.tipc.Testbed;
import io.hadooptipc.tipc.TipcServerSocketChannel;
import io.hadooptipc.tipc.TipcServiceAddress;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import org.apache.hadoop.mapred.ShuffleChannelHandlerContext;
import org.apache.hadoop.mapred.ShuffleChannelInitializer;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The spike of issue 11's design question: Hadoop's own shuffle pipeline ({@link ShuffleChannelInitializer}, the
 * handler context a {@link ShuffleHandler} subclass gets from {@code createHandlerContext()}) serving map outputs
 * over AF_TIPC, through Netty's epoll transport given a TIPC socket we bound and listen on. In node n1; fetched
 * from n2 with raw requests.
 */
@Tag("tipc-kernel")
class StockPipelineOverTipcKernelTest {
    static final TipcServiceAddress SERVICE = TipcServiceAddress.of(30_099, 1);
    static final int MAPS = 3;
    static final int PARTITION = 256 << 10;

    @TempDir
    static Path local;
    static MapOutputFixture outputs;
    static StockOverTipc handler;

    /** The stock handler, plus its own pipeline served on a TIPC listener. */
    static final class StockOverTipc extends ShuffleHandler {
        /** Held for the life of the handler: its cleaner would otherwise close the socket Netty serves. */
        private TipcServerSocketChannel listener;
        private EpollEventLoopGroup loops;
        private Channel served;
        int port;

        @Override
        protected void serviceStart() throws Exception {
            super.serviceStart();
            port = getConfig().getInt(SHUFFLE_PORT_CONFIG_KEY, -1);
            ShuffleChannelHandlerContext context = createHandlerContext();
            context.port = port; // the UrlHash a fetcher signs names the HTTP port
            listener = TipcServerSocketChannel.open().bind(SERVICE);
            int fd = Descriptors.number(listener);
            loops = new EpollEventLoopGroup(2);
            served = new ServerBootstrap().group(loops)
                    .channelFactory((ChannelFactory<ServerChannel>) () -> new EpollServerSocketChannel(fd))
                    .childHandler(new TipcChannelInitializer(new ShuffleChannelInitializer(context, null)))
                    .register().sync().channel();
        }

        @Override
        protected void serviceStop() throws Exception {
            if (served != null) {
                served.close().sync();
                loops.shutdownGracefully().sync();
            }
            super.serviceStop();
        }
    }

    /** Stock's pipeline, plus a clean end of connection as TIPC knows it. */
    static final class TipcChannelInitializer extends ChannelInitializer<SocketChannel> {
        private final ShuffleChannelInitializer stock;

        TipcChannelInitializer(ShuffleChannelInitializer stock) {
            this.stock = stock;
        }

        @Override
        protected void initChannel(SocketChannel ch) throws Exception {
            stock.initChannel(ch);
            ch.pipeline().addFirst("tipc-shutdown", new ShutdownBeforeClose());
        }
    }

    /**
     * A TIPC socket closed without shutdown(SHUT_RDWR) ends its connection with an error, which the peer reads as
     * ECONNRESET after the data; Netty closes without it, and its own shutdown() asks for SHUT_WR alone, which TIPC
     * refuses (EINVAL).
     */
    static final class ShutdownBeforeClose extends ChannelOutboundHandlerAdapter {
        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
            try {
                ((Socket) ((UnixChannel) ctx.channel()).fd()).shutdown(true, true);
            } catch (IOException e) {
                // already shut down or reset: closing is all that is left
            }
            ctx.close(promise);
        }
    }

    @BeforeAll
    static void serve() throws Exception {
        assertTrue(Epoll.isAvailable(), () -> "Netty's epoll transport: " + Epoll.unavailabilityCause());
        outputs = new MapOutputFixture(local, MAPS, 1, PARTITION);
        handler = Testbed.on("n1", () -> {
            YarnConfiguration conf = new YarnConfiguration();
            conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
            conf.setInt(ShuffleHandler.MAX_SHUFFLE_THREADS, 2);
            StockOverTipc h = new StockOverTipc();
            h.setAuxiliaryLocalPathHandler(outputs.localDirs());
            h.init(conf);
            h.start();
            h.initializeApplication(outputs.application());
            return h;
        });
        Testbed.awaitPublished("n2", SERVICE, Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() throws Exception {
        FetchCost.stop("n1", handler);
    }

    @Test
    void servesSignedMapOutputsAcrossNodesByteForByte() throws Exception {
        String[] maps = outputs.mapIds().toArray(String[]::new);
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, maps);
        String hash = ShuffleWire.urlHash(uri, handler.port, outputs.key);
        byte[] response = fetch(ShuffleWire.request(uri, hash, null).encode());
        int end = HttpHead.endOf(response, 0, response.length);
        HttpHead head = HttpHead.parse(response, 0, end);
        assertEquals("200", head.startLine().split(" ")[1], head.startLine());
        SecureShuffleUtils.verifyReply(head.field(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH), hash, outputs.key);
        List<ShuffleWire.Frame> frames = ShuffleWire.frames(
                new ByteArrayInputStream(Arrays.copyOfRange(response, end, response.length)));
        assertEquals(MAPS, frames.size());
        for (int m = 0; m < MAPS; m++) {
            assertEquals(maps[m], frames.get(m).mapId());
            CRC32C crc = new CRC32C();
            crc.update(frames.get(m).data());
            assertEquals(outputs.crc(m, 0), crc.getValue(), "map " + m);
        }
    }

    @Test
    void refusesAWrongUrlHashAsStockDoes() throws Exception {
        String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().get(0));
        String wrong = ShuffleWire.urlHash(uri, handler.port, ShuffleWire.key("another job"));
        byte[] response = fetch(ShuffleWire.request(uri, wrong, null).encode());
        HttpHead head = HttpHead.parse(response, 0, HttpHead.endOf(response, 0, response.length));
        assertEquals("401", head.startLine().split(" ")[1], head.startLine());
    }

    /** Sends {@code request} from n2 and returns everything the server sent until it closed the connection. */
    private static byte[] fetch(byte[] request) throws Exception {
        return Testbed.on("n2", () -> TipcExchange.untilClosed(SERVICE, request));
    }
}
