package io.hadooptipc.tipc;

/**
 * A service {type, instance}. When connecting or sending, {@code lookupDomain}
 * limits the name lookup to one node (its 32-bit node address); 0 looks the name
 * up anywhere in the cluster.
 */
public final class TipcServiceAddress extends TipcAddress {
    private static final long serialVersionUID = 1L;

    private final int type;
    private final int instance;
    private final int lookupDomain;

    private TipcServiceAddress(int type, int instance, int lookupDomain) {
        this.type = type;
        this.instance = instance;
        this.lookupDomain = lookupDomain;
    }

    public static TipcServiceAddress of(int type, int instance) {
        return new TipcServiceAddress(type, instance, 0);
    }

    /** The same service, looked up only on the node with the given address. */
    public TipcServiceAddress onNode(int nodeAddress) {
        return new TipcServiceAddress(type, instance, nodeAddress);
    }

    public int type() {
        return type;
    }

    public int instance() {
        return instance;
    }

    public int lookupDomain() {
        return lookupDomain;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TipcServiceAddress)) {
            return false;
        }
        TipcServiceAddress a = (TipcServiceAddress) o;
        return a.type == type && a.instance == instance && a.lookupDomain == lookupDomain;
    }

    @Override
    public int hashCode() {
        return (type * 31 + instance) * 31 + lookupDomain;
    }

    @Override
    public String toString() {
        String service = "tipc:{" + Integer.toUnsignedString(type) + "," + Integer.toUnsignedString(instance) + "}";
        return lookupDomain == 0 ? service : service + "@" + Integer.toHexString(lookupDomain);
    }
}
