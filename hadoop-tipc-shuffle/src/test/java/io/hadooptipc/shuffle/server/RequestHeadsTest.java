package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.HttpHead;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RequestHeadsTest {
    private static final String FIRST = "GET /mapOutput?map=1 HTTP/1.1\r\nUrlHash: a\r\n\r\n";
    private static final String SECOND = "GET /mapOutput?map=2 HTTP/1.1\r\nUrlHash: b\r\n\r\n";

    @Test
    void twoRequestsInOneReadComeOutInOrder() throws Exception {
        RequestHeads heads = new RequestHeads(1024);
        feed(heads, FIRST + SECOND);
        assertEquals("GET /mapOutput?map=1 HTTP/1.1", heads.next().startLine());
        assertEquals("GET /mapOutput?map=2 HTTP/1.1", heads.next().startLine());
        assertNull(heads.next());
    }

    @Test
    void pipelinedRequestsSplitAtEveryOffsetComeOutWhole() throws Exception {
        String both = FIRST + SECOND;
        for (int cut = 0; cut <= both.length(); cut++) {
            RequestHeads heads = new RequestHeads(1024);
            List<String> got = new ArrayList<>();
            feed(heads, both.substring(0, cut));
            drain(heads, got);
            feed(heads, both.substring(cut));
            drain(heads, got);
            assertEquals(List.of("GET /mapOutput?map=1 HTTP/1.1", "GET /mapOutput?map=2 HTTP/1.1"), got, "cut at " + cut);
        }
    }

    @Test
    void garbageAfterARequestIsRefusedAtOnce() throws Exception {
        RequestHeads heads = new RequestHeads(1024);
        feed(heads, FIRST + "\u0000\u0001 not HTTP");
        heads.next();
        assertThrows(HttpHead.MalformedHttpException.class, heads::next);
    }

    @Test
    void aHeadOverTheLimitIsTooLarge() throws Exception {
        RequestHeads heads = new RequestHeads(64);
        feed(heads, "GET /" + "x".repeat(60));
        assertThrows(RequestHeads.HeadTooLarge.class, heads::next);
    }

    private static void drain(RequestHeads heads, List<String> got) throws Exception {
        for (HttpHead h; (h = heads.next()) != null; ) {
            got.add(h.startLine());
        }
    }

    private static void feed(RequestHeads heads, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        int at = 0;
        while (at < bytes.length) {
            ByteBuffer space = heads.space();
            int n = Math.min(space.remaining(), bytes.length - at);
            space.put(bytes, at, n);
            heads.filled(n);
            at += n;
        }
    }
}
