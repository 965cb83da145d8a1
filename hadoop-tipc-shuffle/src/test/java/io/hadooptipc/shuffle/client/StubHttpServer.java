package io.hadooptipc.shuffle.client;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The HTTP/TCP side of host tests: answers every request on loopback with one response, counting requests. */
final class StubHttpServer implements AutoCloseable {
    final AtomicInteger requests = new AtomicInteger();
    private final HttpServer server;

    StubHttpServer(int status, Map<String, String> fields, byte[] body) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            fields.forEach(exchange.getResponseHeaders()::add);
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
