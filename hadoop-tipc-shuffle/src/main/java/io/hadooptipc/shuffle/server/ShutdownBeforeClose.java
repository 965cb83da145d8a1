package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;

import java.io.IOException;
import java.nio.channels.NotYetConnectedException;

/**
 * Ends a connection the way a TIPC peer reads as a clean end of stream. A TIPC socket closed
 * without shutdown(SHUT_RDWR) aborts its connection, and the peer's reads fail with ECONNRESET even
 * after a complete response; Netty closes without it, and its own shutdown() asks for SHUT_WR
 * alone, which TIPC refuses (EINVAL).
 */
final class ShutdownBeforeClose extends ChannelOutboundHandlerAdapter {
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        try {
            if (ctx.channel() instanceof UnixChannel && ((UnixChannel) ctx.channel()).fd() instanceof Socket) {
                Socket socket = (Socket) ((UnixChannel) ctx.channel()).fd();
                if (socket.isOpen()) {
                    socket.shutdown(true, true);
                }
            }
        } catch (IOException | NotYetConnectedException e) {
            // reset, or the peer left first (Netty reports ENOTCONN unchecked): closing is all that is left
        } finally {
            ctx.close(promise); // whatever happened: a connection left open here would hold its descriptor for good
        }
    }
}
