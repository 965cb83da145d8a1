package io.hadooptipc.tipc;

/** The instances {@code lower..upper} (inclusive, unsigned) of one service type. */
public final class TipcServiceRange extends TipcAddress {
    private static final long serialVersionUID = 1L;

    private final int type;
    private final int lower;
    private final int upper;

    private TipcServiceRange(int type, int lower, int upper) {
        if (Integer.compareUnsigned(lower, upper) > 0) {
            throw new IllegalArgumentException("lower " + Integer.toUnsignedString(lower)
                    + " is above upper " + Integer.toUnsignedString(upper));
        }
        this.type = type;
        this.lower = lower;
        this.upper = upper;
    }

    public static TipcServiceRange of(int type, int lower, int upper) {
        return new TipcServiceRange(type, lower, upper);
    }

    /** Every instance of the type. */
    public static TipcServiceRange all(int type) {
        return new TipcServiceRange(type, 0, -1);
    }

    public static TipcServiceRange of(TipcServiceAddress service) {
        return new TipcServiceRange(service.type(), service.instance(), service.instance());
    }

    public int type() {
        return type;
    }

    public int lower() {
        return lower;
    }

    public int upper() {
        return upper;
    }

    public boolean contains(int instance) {
        return Integer.compareUnsigned(instance, lower) >= 0 && Integer.compareUnsigned(instance, upper) <= 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TipcServiceRange)) {
            return false;
        }
        TipcServiceRange r = (TipcServiceRange) o;
        return r.type == type && r.lower == lower && r.upper == upper;
    }

    @Override
    public int hashCode() {
        return (type * 31 + lower) * 31 + upper;
    }

    @Override
    public String toString() {
        return "tipc:{" + Integer.toUnsignedString(type) + "," + Integer.toUnsignedString(lower) + ","
                + Integer.toUnsignedString(upper) + "}";
    }
}
