package io.hadooptipc.shuffle.client;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.URL;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Connects a TIPC stream to each map host when its first map output becomes known, in a thread of
 * its own, and leaves it in the {@link StreamPool} for the host's first fetch: a fetcher that comes
 * to the host later (the scheduler gives hosts to free fetchers, so most hosts of a many-to-one
 * shuffle wait) finds the stream connected. Hosts routed over HTTP/TCP get none; a stream that
 * cannot be opened is only logged, the host's fetch opening its own under the fallback rules.
 */
final class AheadStreams implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(AheadStreams.class);

    private final Opener opener;

    AheadStreams(TransportRoutes routes, StreamPool streams) {
        opener = new Opener(routes, streams);
        opener.start();
    }

    /** A map host whose first map output just became known, by the base URL the fetches to it start with. */
    void hostKnown(URL url) {
        opener.hosts.add(url);
    }

    @Override
    public void close() {
        opener.interrupt();
    }

    /** The opening thread: a class of its own, not a lambda (see BootstrapFreeTest). */
    private static final class Opener extends Thread {
        private final TransportRoutes routes;
        private final StreamPool streams;
        private final LinkedBlockingQueue<URL> hosts = new LinkedBlockingQueue<>();

        Opener(TransportRoutes routes, StreamPool streams) {
            super("TIPC shuffle streams ahead");
            setDaemon(true);
            this.routes = routes;
            this.streams = streams;
        }

        @Override
        public void run() {
            try {
                while (true) {
                    URL url = hosts.take();
                    try {
                        TransportRoutes.Route route = routes.routeAhead(url);
                        if (route.fallback() == null) {
                            streams.openAhead(route.name(), url.getHost());
                        }
                    } catch (IOException e) {
                        LOG.debug("No TIPC stream opened ahead to {}: {}", url.getAuthority(), e.toString());
                    }
                }
            } catch (InterruptedException e) {
                // closed with the task's transports
            }
        }
    }
}
