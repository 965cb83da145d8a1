package io.hadooptipc.shuffle;

import io.hadooptipc.tipc.TipcScope;
import io.hadooptipc.tipc.TipcServiceAddress;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The TIPC name of one NodeManager's shuffle service, derived from what a reducer
 * already has: the address and port in its shuffle URL. The service type is
 * configured cluster-wide; the instance is a 32-bit FNV-1a hash of the address bytes
 * and the port. A hash can collide, so the server refuses to publish a name that
 * someone else already holds, and every response names the server that sent it
 * ({@link TipcShuffleConfig#SERVER_HEADER}) for the fetcher to check.
 */
public final class ShuffleServiceName {
    private final InetAddress address;
    private final int port;

    private static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    public ShuffleServiceName(InetAddress address, int port) {
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        this.address = address;
        this.port = port;
    }

    /**
     * The name for an address as either side sees it. Every loopback address (127.0.1.1,
     * which Debian maps the host name to, as well as 127.0.0.1 and ::1) means this host,
     * so all of them share the one name of the loopback address.
     */
    public static ShuffleServiceName of(InetAddress address, int port) {
        return new ShuffleServiceName(address.isLoopbackAddress() ? LOOPBACK : address, port);
    }

    /**
     * The names a NodeManager on this host publishes for its shuffle port: one for every
     * address of every interface that is up, except IPv6 link-local ones.
     */
    public static List<ShuffleServiceName> ofThisHost(int port) throws SocketException {
        Set<ShuffleServiceName> names = new LinkedHashSet<>();
        Enumeration<NetworkInterface> nics = NetworkInterface.getNetworkInterfaces();
        for (NetworkInterface nic : nics == null ? Collections.<NetworkInterface>emptyList() : Collections.list(nics)) {
            try {
                if (!nic.isUp()) {
                    continue;
                }
            } catch (SocketException e) { // listed, then gone (or listed from another network namespace)
                continue;
            }
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (!(a instanceof Inet6Address && a.isLinkLocalAddress())) {
                    names.add(of(a, port));
                }
            }
        }
        return Collections.unmodifiableList(new ArrayList<>(names));
    }

    public int instance() {
        int h = FNV_OFFSET;
        for (byte b : address.getAddress()) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        h = (h ^ (port >>> 8)) * FNV_PRIME;
        return (h ^ (port & 0xff)) * FNV_PRIME;
    }

    public TipcServiceAddress tipcAddress(int serviceType) {
        return TipcServiceAddress.of(serviceType, instance());
    }

    /** Loopback names mean "this node" and are published on this node only. */
    public TipcScope scope() {
        return address.isLoopbackAddress() ? TipcScope.NODE : TipcScope.CLUSTER;
    }

    // equals and hashCode written out: a record's generated ones bootstrap java.lang.runtime.ObjectMethods
    // on first use, method handles that cost a reduce task JVM about half a second under emulation,
    // and fetchers hash names from their first fetch on.
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ShuffleServiceName)) {
            return false;
        }
        ShuffleServiceName n = (ShuffleServiceName) o;
        return port == n.port && Objects.equals(address, n.address);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(address) + port;
    }

    /** {@code 10.0.0.7:13562} or {@code [fd00::7]:13562}: the identity a server states. */
    @Override
    public String toString() {
        String host = address.getHostAddress();
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }

    public InetAddress address() {
        return address;
    }

    public int port() {
        return port;
    }
}
