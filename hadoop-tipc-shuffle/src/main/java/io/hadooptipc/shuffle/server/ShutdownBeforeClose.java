package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;

import java.io.IOException;

/**
 * Ends a connection the way a TIPC peer reads as a clean end of stream. A TIPC socket closed
 * without shutdown(SHUT_RDWR) aborts its connection, and the peer's reads fail with ECONNRESET even
 * after a complete response; Netty closes without it, and its own shutdown() asks for SHUT_WR
 * alone, which TIPC refuses (EINVAL).
 */
final class ShutdownBeforeClose extends ChannelOutboundHandlerAdapter {
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (ctx.channel() instanceof UnixChannel unix && unix.fd() instanceof Socket socket && socket.isOpen()) {
            try {
                socket.shutdown(true, true);
            } catch (IOException e) {
                // shut down or reset already: closing is all that is left
            }
        }
        ctx.close(promise);
    }
}
