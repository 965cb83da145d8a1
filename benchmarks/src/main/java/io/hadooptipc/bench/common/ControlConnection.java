package io.hadooptipc.bench.common;

import io.hadooptipc.testbed.Testbed;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * How machine 1 drives a benchmark's other testbed machines: a TCP connection of text lines, a request and its
 * one-line reply at a time, over the machines' own network, where no TIPC setting affects it.
 */
public final class ControlConnection implements Closeable {
    /** What a driven machine answers to a request, split into words at spaces. */
    @FunctionalInterface
    public interface Answers {
        String answer(String[] words) throws Exception;
    }

    private final String peer;
    private final Socket socket;
    private final BufferedReader in;
    private final PrintWriter out;

    private ControlConnection(String peer, Socket socket) throws IOException {
        this.peer = peer;
        this.socket = socket;
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** Machine 1's side: connects to {@code ip}'s control port as soon as it listens (within 10 minutes). */
    public static ControlConnection connect(String ip, int port) throws Exception {
        return new ControlConnection(ip, Testbed.connect(ip, port, Duration.ofMinutes(10)));
    }

    /**
     * A driven machine's side: accepts machine 1's connection on {@code port} and answers each request with
     * {@code answers} until machine 1 closes it.
     */
    public static void serve(int port, Answers answers) throws Exception {
        try (ServerSocket listener = new ServerSocket()) {
            listener.bind(new InetSocketAddress(port));
            try (ControlConnection m1 = new ControlConnection("machine 1", listener.accept())) {
                for (String line; (line = m1.in.readLine()) != null; ) {
                    m1.out.println(answers.answer(line.split(" ")));
                }
            }
        }
    }

    /** Sends {@code request} and waits for its reply. */
    public String ask(String request) throws IOException {
        out.println(request);
        String reply = in.readLine();
        if (reply == null) {
            throw new IOException(peer + " closed the control connection after '" + request + "'");
        }
        return reply;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
