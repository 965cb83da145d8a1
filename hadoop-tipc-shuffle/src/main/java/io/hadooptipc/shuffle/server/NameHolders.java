package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.tipc.TipcSocketAddress;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who holds this NodeManager's shuffle names, from the topology service's reports of every binding:
 * its own listener, and any other socket. TIPC lets any process bind any name, and the kernel hands
 * such a holder a share of reducers' connections (all of them, where it binds a range the kernel's
 * lookup tries first); reducers do not read an answer without the job token's channel binding and
 * take the fetch to the listener's publication, so the listener publishes beside any other holder.
 */
final class NameHolders {
    /** What the watch does about a change. */
    interface Actions {
        void otherHolder(ShuffleServiceName name, TipcSocketAddress holder);

        void holderLeft(ShuffleServiceName name, TipcSocketAddress holder);
    }

    private static final class Holders {
        final ShuffleServiceName name;
        final Set<TipcSocketAddress> others = new LinkedHashSet<>();

        Holders(ShuffleServiceName name) {
            this.name = name;
        }
    }

    private final TipcSocketAddress listener;
    private final Actions actions;
    private final Map<Integer, Holders> byInstance = new HashMap<>();

    /** {@code names}, one per instance, as this NodeManager publishes them on {@code listener}. */
    NameHolders(TipcSocketAddress listener, List<ShuffleServiceName> names, Actions actions) {
        this.listener = listener;
        this.actions = actions;
        for (ShuffleServiceName name : names) {
            if (byInstance.putIfAbsent(name.instance(), new Holders(name)) != null) {
                throw new IllegalArgumentException("two names of instance " + name.instance() + ": " + names);
            }
        }
    }

    void published(int instance, TipcSocketAddress socket) {
        Holders holders = byInstance.get(instance);
        if (holders != null && !socket.equals(listener) && holders.others.add(socket)) {
            actions.otherHolder(holders.name, socket);
        }
    }

    void withdrawn(int instance, TipcSocketAddress socket) {
        Holders holders = byInstance.get(instance);
        if (holders != null && holders.others.remove(socket)) {
            actions.holderLeft(holders.name, socket);
        }
    }

    /** Sockets other than the listener that bind any of this NodeManager's names (one binding several counts once). */
    int otherHolders() {
        Set<TipcSocketAddress> sockets = new HashSet<>();
        for (Holders holders : byInstance.values()) {
            sockets.addAll(holders.others);
        }
        return sockets.size();
    }
}
