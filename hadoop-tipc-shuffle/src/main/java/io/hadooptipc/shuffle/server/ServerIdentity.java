package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * Which of this node's shuffle names a TIPC connection reached. A request whose
 * {@link TipcShuffleConfig#TARGET_HEADER} names another server (two hosts whose names map to one
 * TIPC instance) gets 421 Misdirected Request and no map output; every response, errors included,
 * names its server in {@link TipcShuffleConfig#SERVER_HEADER}, so that the fetcher can tell a
 * refusal by the server it meant from a misdirection.
 */
final class ServerIdentity extends ChannelDuplexHandler {
    private final Set<String> identities;
    /** What a response names when its request named no target, or none could be read: the same on every start. */
    private final String defaultIdentity;
    private String identity;

    /** @param identities this server's {@code address:port} names */
    ServerIdentity(Set<String> identities) {
        this.identities = Collections.unmodifiableSet(new HashSet<>(identities));
        this.defaultIdentity = Collections.min(identities);
        this.identity = defaultIdentity;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            HttpRequest request = (HttpRequest) msg;
            String target = request.headers().get(TipcShuffleConfig.TARGET_HEADER);
            if (target != null && !identities.contains(target)) {
                ReferenceCountUtil.release(msg);
                identity = defaultIdentity;
                // Names what was asked for, not this node's addresses, which over TIPC any process could ask for
                Refusal.sendAndClose(ctx, Refusal.of(HttpResponseStatus.MISDIRECTED_REQUEST,
                        "Misdirected: this server is not " + target));
                return;
            }
            identity = target != null ? target : defaultIdentity;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse) {
            HttpResponse response = (HttpResponse) msg;
            response.headers().set(TipcShuffleConfig.SERVER_HEADER, identity);
        }
        ctx.write(msg, promise);
    }
}
