package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleWire;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.hadooptipc.shuffle.ShuffleWire.JOB;
import static io.hadooptipc.shuffle.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShuffleRequestTest {

    private static int status(String uri) {
        return status(ShuffleWire.request(uri, "h", null));
    }

    private static int status(HttpHead head) {
        return assertThrows(ShuffleException.class, () -> ShuffleRequest.parse(head)).status();
    }

    @Test
    void parsesTheStockRequest() throws Exception {
        ShuffleRequest r = ShuffleRequest.parse(ShuffleWire.request(
                ShuffleWire.uri(JOB, 3, map(0), map(1)) + "&keepAlive=true", "hash", "10.0.0.1:13562"));
        assertEquals(JOB, r.jobId());
        assertEquals(3, r.reduce());
        assertEquals(List.of(map(0), map(1)), r.mapIds());
        assertTrue(r.keepAliveAsked());
        assertEquals("hash", r.urlHash());
        assertEquals("10.0.0.1:13562", r.target());
        assertFalse(ShuffleRequest.parse(ShuffleWire.request(ShuffleWire.uri(JOB, 0, map(0)), null, null)).keepAliveAsked());
        assertTrue(ShuffleRequest.parse(ShuffleWire.keepAliveRequest(ShuffleWire.uri(JOB, 0, map(0)), null, null)).keepAliveAsked());
    }

    @Test
    void refusesWhatTheStockHandlerRefuses() {
        assertEquals(405, status(HttpHead.builder("POST " + ShuffleWire.uri(JOB, 0, map(0)) + " HTTP/1.1")
                .field("name", "mapreduce").field("version", "1.0.0").build()));
        assertEquals(400, status(HttpHead.builder("GET " + ShuffleWire.uri(JOB, 0, map(0)) + " HTTP/1.1")
                .field("name", "mapreduce").field("version", "0.9").build()));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=0"));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&job=" + JOB + "&reduce=0&map=" + map(0)));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=x&map=" + map(0)));
        assertEquals(400, status(HttpHead.builder("GET /x HTTP/1.1 extra").build()));
    }

    @Test
    void refusesIdsThatHadoopWouldNotPrint() {
        assertEquals(400, status("/mapOutput?job=../../etc&reduce=0&map=" + map(0)));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=0&map=" + map(0) + "/../x"));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=0&map=" + map(0).replace("_0", "_00")));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=0&map=attempt_1700000000000_0002_m_000000_0"));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=0&map=attempt_1700000000000_0001_r_000000_0%2F"));
        assertEquals(400, status("/mapOutput?job=" + JOB + "&reduce=-1&map=" + map(0)));
    }
}
