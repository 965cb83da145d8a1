package io.hadooptipc.shuffle;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HttpHeadTest {

    private static HttpHead parse(String s) throws HttpHead.MalformedHttpException {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return HttpHead.parse(b, 0, b.length);
    }

    @Test
    void encodesAndParsesBack() throws Exception {
        HttpHead head = HttpHead.builder("GET /mapOutput?job=j HTTP/1.1").field("UrlHash", "abc=").field("name", "mapreduce").build();
        byte[] bytes = head.encode();
        assertEquals(bytes.length, HttpHead.endOf(bytes, 0, bytes.length));
        HttpHead back = HttpHead.parse(bytes, 0, bytes.length);
        assertEquals("GET /mapOutput?job=j HTTP/1.1", back.startLine());
        assertEquals("abc=", back.field("urlhash"));
        assertEquals(2, back.size());
    }

    @Test
    void findsTheEndAcrossWhateverCameBefore() {
        byte[] b = "HTTP/1.1 200 OK\r\nA: b\r\n\r\nBODY".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(b.length - 4, HttpHead.endOf(b, 0, b.length));
        assertEquals(-1, HttpHead.endOf(b, 0, b.length - 6));
    }

    @Test
    void rejectsMalformedHeads() {
        assertThrows(HttpHead.MalformedHttpException.class, () -> parse("GET / HTTP/1.1\r\nno colon here\r\n\r\n"));
        assertThrows(HttpHead.MalformedHttpException.class, () -> parse("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"));
        assertThrows(HttpHead.MalformedHttpException.class, () -> parse("GET / HTTP/1.1\r\nA: x\u0000y\r\n\r\n"));
        assertThrows(HttpHead.MalformedHttpException.class, () -> parse("\r\n\r\n"));
        assertThrows(HttpHead.MalformedHttpException.class, () -> parse("GET / HTTP/1.1\r\nA: b\r\n"));
    }

    @Test
    void refusesToBuildHeaderInjection() {
        assertThrows(IllegalArgumentException.class,
                () -> HttpHead.builder("GET / HTTP/1.1").field("A", "x\r\nInjected: y"));
        assertNull(HttpHead.builder("GET / HTTP/1.1").build().field("A"));
    }
}
