package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ChannelBinding;
import io.hadooptipc.tipc.Tipc;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.unix.UnixChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.token.SecretManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.SecretKey;
import java.io.IOException;
import java.net.URL;
import java.util.List;

/**
 * Serves a request over TIPC only when its {@link ChannelBinding} names this connection's own socket
 * and verifies under the job's token; answers every other with the uniform 401 of
 * {@link UnauthorizedAnswer} and closes. A request relayed by a process that bound our name, or
 * replayed from its socket, names that process's socket. Every response to a verified request carries
 * the reply MAC, the reducer's proof that it reached a holder of the job token.
 * <p>
 * A reducer sends no UrlHash over TIPC: stock's HTTP/TCP port takes it, and the socket a reducer
 * reaches by name has proven nothing when the request goes out. So a verified request is given
 * the UrlHash stock's handler checks, made here with the job token as the stock fetcher makes it,
 * in place of any it carries; stock's handler then verifies it and signs its ReplyHash as ever.
 */
final class ChannelBindingCheck extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelBindingCheck.class);
    static final String BAD_REQUEST = "Bad request: not a well-formed HTTP request head";

    /** The identity the kernel gives the server's end of a connection, as the reducer's getpeername reads it. */
    @FunctionalInterface
    interface ServerSocket {
        String of(Channel channel) throws IOException;
    }

    /** A TIPC connection's: getsockname(2) on the accepted socket Netty serves. */
    static final ServerSocket TIPC = channel -> {
        if (!(channel instanceof UnixChannel)) {
            throw new IOException("not a TIPC connection: " + channel);
        }
        UnixChannel unix = (UnixChannel) channel;
        return Tipc.localAddress(unix.fd().intValue()).toString();
    };

    private final JobTokenSecretManager tokens;
    private final String server;
    /** The NodeManager's HTTP port, which stock's UrlHash signs with the request target. */
    private final int httpPort;
    /** The verified request's job token and nonce, until its response goes out (one request at a time). */
    private SecretKey token;
    private String nonce;

    /**
     * @param server   this connection's {@link ServerSocket} identity
     * @param httpPort the port of stock's HTTP/TCP shuffle, as stock's handler context has it
     */
    ChannelBindingCheck(JobTokenSecretManager tokens, String server, int httpPort) {
        this.tokens = tokens;
        this.server = server;
        this.httpPort = httpPort;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            HttpRequest request = (HttpRequest) msg;
            // A head Netty could not parse is answered here: stock's handler would serve one whose UrlHash
            // verifies, and a relay could strip the binding by spoiling a byte of it.
            if (!request.decoderResult().isSuccess()) {
                ReferenceCountUtil.release(msg);
                Refusal.sendAndClose(ctx, Refusal.of(HttpResponseStatus.BAD_REQUEST, BAD_REQUEST));
                return;
            }
            String refused = refusal(request);
            if (refused != null) {
                ReferenceCountUtil.release(msg);
                LOG.info("TIPC shuffle request on socket {} refused: {}", server, LoggedText.of(refused));
                Refusal.sendAndClose(ctx, Refusal.of(HttpResponseStatus.UNAUTHORIZED, UnauthorizedAnswer.TEXT));
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Why {@code request} is refused; null when its binding verifies, with its token and nonce kept for the reply. */
    private String refusal(HttpRequest request) {
        String requestNonce = request.headers().get(ChannelBinding.NONCE_HEADER);
        String mac = request.headers().get(ChannelBinding.REQUEST_HEADER);
        if (requestNonce == null || mac == null) {
            return "no channel binding";
        }
        List<String> jobs = new QueryStringDecoder(request.uri()).parameters().get("job");
        if (jobs == null || jobs.size() != 1) {
            return "no single job named";
        }
        SecretKey jobToken;
        try {
            jobToken = tokens.retrieveTokenSecret(jobs.get(0));
        } catch (SecretManager.InvalidToken e) {
            return "no token for job " + jobs.get(0);
        }
        if (!ChannelBinding.requestVerifies(jobToken, request.uri(), requestNonce, server, mac)) {
            return "the channel binding does not verify for this socket (relayed, replayed or forged)";
        }
        try {
            request.headers().set(SecureShuffleUtils.HTTP_HEADER_URL_HASH, SecureShuffleUtils.hashFromString(
                    SecureShuffleUtils.buildMsgFrom(new URL("http", "", httpPort, request.uri())), jobToken));
        } catch (IOException e) {
            return "stock's UrlHash cannot be made for this request target: " + e.getMessage();
        }
        token = jobToken;
        nonce = requestNonce;
        return null;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse && nonce != null) {
            HttpResponse response = (HttpResponse) msg;
            response.headers().set(ChannelBinding.REPLY_HEADER, ChannelBinding.reply(token, nonce, server));
            token = null;
            nonce = null;
        }
        ctx.write(msg, promise);
    }
}
