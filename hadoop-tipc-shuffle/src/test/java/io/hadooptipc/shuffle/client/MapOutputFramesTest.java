package io.hadooptipc.shuffle.client;

import io.hadooptipc.testbed.ShuffleWire;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static io.hadooptipc.testbed.ShuffleWire.map;
import static org.junit.jupiter.api.Assertions.assertEquals;

class MapOutputFramesTest {

    private static byte[] body(int... lengths) throws IOException {
        byte[][] outputs = new byte[lengths.length][];
        for (int i = 0; i < lengths.length; i++) {
            outputs[i] = new byte[lengths[i]];
        }
        return ShuffleWire.body(0, outputs);
    }

    @Test
    void creditsEachMapOutputToTheTransportOfItsLastByteWhereverTheChunksSplit() throws IOException {
        byte[] body = body(300, 0, 70_000, 5);
        for (int split = 1; split < body.length; split += 97) {
            List<String> seen = new ArrayList<>();
            MapOutputFrames frames = new MapOutputFrames((tipc, bytes) -> seen.add((tipc ? "tipc:" : "tcp:") + bytes));
            frames.accept(body, 0, split, true);
            frames.accept(body, split, body.length - split, false);
            assertEquals(4, seen.size(), "split at " + split);
            List<Long> lengths = seen.stream().map(s -> Long.parseLong(s.substring(s.indexOf(':') + 1)))
                    .collect(Collectors.toList());
            assertEquals(List.of(300L, 0L, 70_000L, 5L), lengths, "split at " + split);
        }
    }

    @Test
    void byteAtATimeWorksToo() throws IOException {
        byte[] body = body(3, 40);
        List<Long> seen = new ArrayList<>();
        MapOutputFrames frames = new MapOutputFrames((tipc, bytes) -> seen.add(bytes));
        for (int i = 0; i < body.length; i++) {
            frames.accept(body, i, 1, true);
        }
        assertEquals(List.of(3L, 40L), seen);
    }

    @Test
    void stopsCountingOnceTheFramingMakesNoSense() throws IOException {
        DataOutputBuffer bad = new DataOutputBuffer();
        new ShuffleHeader(map(0), -5, 10, 0).write(bad);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bad.getData(), 0, bad.getLength());
        out.write(body(10, 20));
        byte[] bytes = out.toByteArray();
        List<Long> seen = new ArrayList<>();
        new MapOutputFrames((tipc, n) -> seen.add(n)).accept(bytes, 0, bytes.length, true);
        assertEquals(List.of(), seen);
    }

    /** The header parser is ours, to run without allocating or throwing: it must read every header Hadoop writes. */
    @Test
    void readsHeadersAsHadoopWritesThemAtEveryNumberSizeAndSplit() throws IOException {
        long[] lengths = {0, 1, 127, 128, 255, 256, 65_535, 65_536, 1L << 24, (1L << 31) + 5};
        String[] mapIds = {"", map(7), "m".repeat(127), "m".repeat(128), "m".repeat(1000)};
        int[] reduces = {0, 1, 128, 1 << 20, Integer.MAX_VALUE};
        byte[] chunk = new byte[1 << 20];
        for (int c = 0; c < lengths.length; c++) {
            DataOutputBuffer header = new DataOutputBuffer();
            new ShuffleHeader(mapIds[c % mapIds.length], lengths[c], lengths[c] * 3 + 1, reduces[c % reduces.length])
                    .write(header);
            for (int split = 0; split <= header.getLength(); split++) {
                List<Long> seen = new ArrayList<>();
                MapOutputFrames frames = new MapOutputFrames((tipc, n) -> seen.add(n));
                frames.accept(header.getData(), 0, split, true);
                frames.accept(header.getData(), split, header.getLength() - split, true);
                for (long left = lengths[c]; left > 0; left -= chunk.length) {
                    frames.accept(chunk, 0, (int) Math.min(chunk.length, left), true);
                }
                assertEquals(List.of(lengths[c]), seen, "length " + lengths[c] + ", header split at " + split);
            }
        }
    }
}
