package io.hadooptipc.shuffle.server;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;

/** Where a response ends on its way out: the write of its last part, a {@code FullHttpResponse} included. */
final class ResponseEnd {
    private ResponseEnd() {
    }

    /** The promise to write {@code msg} with: {@code listener} hears when it is written, if it ends a response. */
    static ChannelPromise listen(Object msg, ChannelPromise promise, ChannelFutureListener listener) {
        if (!(msg instanceof LastHttpContent)) {
            return promise;
        }
        ChannelPromise listened = promise.unvoid();
        listened.addListener(listener);
        return listened;
    }
}
