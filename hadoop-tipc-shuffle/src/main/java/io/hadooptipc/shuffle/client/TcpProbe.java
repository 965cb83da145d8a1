package io.hadooptipc.shuffle.client;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The TCP connect to a map host's shuffle port that tells a host whose TIPC node was lost from one that is gone:
 * a connection, or a refusal (the host's kernel answered: it is up, whatever its NodeManager does), within the
 * timeout means the host answers; a timeout, no route, or an unresolvable name that it does not.
 */
final class TcpProbe implements NodeLoss.HostProbe {
    @Override
    public boolean answers(String host, int port, int timeoutMillis) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), timeoutMillis);
            return true;
        } catch (ConnectException e) {
            return e.getMessage() != null && e.getMessage().contains("refused");
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }
}
