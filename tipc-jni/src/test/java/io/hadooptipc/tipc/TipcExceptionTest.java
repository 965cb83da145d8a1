package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TipcExceptionTest {

    @Test
    void messageNamesCallAddressErrnoAndMeaning() {
        TipcException e = TipcException.of("connect to", TipcServiceAddress.of(18888, 1), TipcException.EHOSTUNREACH);
        assertEquals("connect to tipc:{18888,1} failed: EHOSTUNREACH (errno 113, No route to host):"
                + " no socket bound to that service is reachable: not bound yet,"
                + " or its node has no TIPC link to this one", e.getMessage());
        assertEquals(TipcServiceAddress.of(18888, 1), e.address().orElseThrow());
        assertEquals(113, e.errno());
    }

    @Test
    void unknownErrnoIsStillNamedByNumber() {
        TipcException e = TipcException.of("bind", null, 200);
        assertEquals("bind failed: errno 200 (errno 200, Unknown error 200)", e.getMessage());
    }
}
