package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** On a kernel without TIPC (the build and CI hosts), everything says so precisely. */
class WithoutKernelTipcTest {

    @BeforeAll
    static void onlyWhereTheKernelLacksTipc() {
        assumeFalse(Files.exists(Path.of("/sys/module/tipc")), "this kernel has TIPC: the testbed suite covers it");
    }

    @Test
    void availabilityNamesTheErrnoAndTheFix() {
        TipcAvailability a = Tipc.availability();
        assertEquals(TipcAvailability.Level.UNAVAILABLE, a.level());
        assertEquals(TipcException.EAFNOSUPPORT, a.errno());
        assertTrue(a.reason().contains("EAFNOSUPPORT (errno 97"), a.reason());
        assertTrue(a.reason().contains("modprobe tipc"), a.reason());
    }

    @Test
    void openingASocketFailsWithTheCallAndErrno() {
        TipcException e = assertThrows(TipcException.class, TipcSocketChannel::open);
        assertEquals("socket(AF_TIPC)", e.call());
        assertEquals(TipcException.EAFNOSUPPORT, e.errno());
        assertTrue(e.getMessage().startsWith("socket(AF_TIPC) failed: EAFNOSUPPORT (errno 97, Address family not supported"),
                e.getMessage());
    }
}
