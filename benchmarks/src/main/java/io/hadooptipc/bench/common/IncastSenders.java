package io.hadooptipc.bench.common;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Where the incast benchmarks' senders (incast_bench.c, a process per connection) listen: on testbed machine k, TIPC
 * service {{@link #TIPC_TYPE}, k}, TCP and SCTP ports of address ADDRESS_PREFIX + k.
 */
public final class IncastSenders {
    public static final int TIPC_TYPE = 30021;
    public static final int TCP_PORT = 5021;
    public static final int SCTP_PORT = 5022;

    private IncastSenders() {
    }

    /** The sender machine of each of N connections: connection i on machine i mod the machine count. */
    public static int[] connectionNodes(int senders, int[] senderNodes) {
        return IntStream.range(0, senders).map(i -> senderNodes[i % senderNodes.length]).toArray();
    }

    /** The C receiver's PEER arguments for connections to these sender machines: TYPE:INSTANCE, or IPV4:PORT. */
    public static List<String> cPeers(String transport, String addressPrefix, int[] nodes) {
        return Arrays.stream(nodes).mapToObj(n -> switch (transport) {
            case "tipc" -> TIPC_TYPE + ":" + n;
            case "tcp" -> addressPrefix + n + ":" + TCP_PORT;
            case "sctp" -> addressPrefix + n + ":" + SCTP_PORT;
            default -> throw new IllegalArgumentException(transport);
        }).toList();
    }
}
