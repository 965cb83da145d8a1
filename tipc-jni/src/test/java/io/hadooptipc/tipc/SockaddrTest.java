package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteOrder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The byte layout of struct sockaddr_tipc, written out by hand from linux/tipc.h (x86-64, little endian). */
class SockaddrTest {

    @BeforeAll
    static void littleEndian() {
        assertEquals(ByteOrder.LITTLE_ENDIAN, ByteOrder.nativeOrder(), "expected layouts are little-endian");
    }

    @Test
    void serviceAddressForConnect() {
        byte[] expected = {30, 0, 2, 0, /* type */ 0x10, 0x27, 0, 0, /* instance */ 7, 0, 0, 0, /* domain */ 0, 0, 0, 0};
        assertArrayEquals(expected, Sockaddr.encode(TipcServiceAddress.of(10000, 7)));
    }

    @Test
    void serviceAddressWithLookupDomain() {
        byte[] encoded = Sockaddr.encode(TipcServiceAddress.of(10000, 7).onNode(0x01001002));
        assertArrayEquals(new byte[] {0x02, 0x10, 0x00, 0x01}, java.util.Arrays.copyOfRange(encoded, 12, 16));
    }

    @Test
    void rangeBoundWithClusterScope() {
        byte[] expected = {30, 0, 1, 2, 0x41, 0, 0, 0, 1, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertArrayEquals(expected, Sockaddr.encodeBind(TipcServiceRange.of(65, 1, -1), TipcScope.CLUSTER));
    }

    @Test
    void unbindNegatesTheScope() {
        byte[] encoded = Sockaddr.encodeUnbind(TipcServiceAddress.of(65, 1), TipcScope.NODE);
        assertEquals(2, encoded[2]);
        assertEquals(-3, encoded[3]);
    }

    @Test
    void socketAddress() {
        byte[] expected = {30, 0, 3, 0, 0x78, 0x56, 0x34, 0x12, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 0};
        assertArrayEquals(expected, Sockaddr.encode(TipcSocketAddress.of(0x12345678, 0x01020304)));
    }

    @Test
    void decodeIsTheInverseOfEncode() {
        for (TipcAddress a : new TipcAddress[] {
                TipcServiceAddress.of(-2, 0x7fffffff).onNode(5),
                TipcServiceRange.of(100, 0, 99),
                TipcSocketAddress.of(-1, 0x1001001)}) {
            assertEquals(a, Sockaddr.decode(Sockaddr.encode(a)));
        }
    }

    @Test
    void decodeRejectsOtherFamilies() {
        byte[] inet = {2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sockaddr.decode(inet));
        assertEquals("not an AF_TIPC address: family 2", e.getMessage());
    }

    @Test
    void rangeBoundsAreUnsigned() {
        TipcServiceRange all = TipcServiceRange.all(70);
        assertEquals(true, all.contains(-1));
        assertEquals(true, all.contains(0));
        assertThrows(IllegalArgumentException.class, () -> TipcServiceRange.of(70, -1, 0));
    }
}
