package io.hadooptipc.tipc;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Packs and unpacks {@code struct sockaddr_tipc} (linux/tipc.h), 16 bytes in host
 * byte order: family (u16), addrtype (u8), scope (s8), then three u32 whose meaning
 * depends on addrtype.
 */
final class Sockaddr {
    static final int SIZE = 16;
    static final byte SERVICE_RANGE = 1;
    static final byte SERVICE_ADDR = 2;
    static final byte SOCKET_ADDR = 3;

    private Sockaddr() {
    }

    /** For connect and sendto: the scope byte is unused. */
    static byte[] encode(TipcAddress address) {
        return encode(address, (byte) 0);
    }

    /** For bind: a service or range published with the given scope. */
    static byte[] encodeBind(TipcAddress address, TipcScope scope) {
        return encode(address, (byte) scope.value);
    }

    /** For unbind: the kernel withdraws a binding when the scope is negated. */
    static byte[] encodeUnbind(TipcAddress address, TipcScope scope) {
        return encode(address, (byte) -scope.value);
    }

    private static byte[] encode(TipcAddress address, byte scope) {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.nativeOrder());
        b.putShort((short) TipcNative.AF_TIPC);
        if (address instanceof TipcServiceAddress) {
            TipcServiceAddress s = (TipcServiceAddress) address;
            b.put(SERVICE_ADDR).put(scope).putInt(s.type()).putInt(s.instance()).putInt(s.lookupDomain());
        } else if (address instanceof TipcServiceRange) {
            TipcServiceRange r = (TipcServiceRange) address;
            b.put(SERVICE_RANGE).put(scope).putInt(r.type()).putInt(r.lower()).putInt(r.upper());
        } else {
            TipcSocketAddress id = (TipcSocketAddress) address;
            b.put(SOCKET_ADDR).put(scope).putInt(id.ref()).putInt(id.node()).putInt(0);
        }
        return b.array();
    }

    static TipcAddress decode(byte[] sockaddr) {
        ByteBuffer b = ByteBuffer.wrap(sockaddr).order(ByteOrder.nativeOrder());
        short family = b.getShort();
        if (family != TipcNative.AF_TIPC) {
            throw new IllegalArgumentException("not an AF_TIPC address: family " + family);
        }
        byte type = b.get();
        b.get(); // scope: meaningless in addresses the kernel reports
        int a = b.getInt();
        int c = b.getInt();
        int d = b.getInt();
        switch (type) {
            case SOCKET_ADDR:
                return TipcSocketAddress.of(a, c);
            case SERVICE_ADDR:
                return TipcServiceAddress.of(a, c).onNode(d);
            case SERVICE_RANGE:
                return TipcServiceRange.of(a, c, d);
            default:
                throw new IllegalArgumentException("unknown sockaddr_tipc addrtype " + type);
        }
    }
}
