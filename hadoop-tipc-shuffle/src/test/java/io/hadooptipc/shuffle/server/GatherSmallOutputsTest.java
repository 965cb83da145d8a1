package io.hadooptipc.shuffle.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.LastHttpContent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GatherSmallOutputs} on its own, writes made as stock's handler makes them: a header with
 * {@code write}, its map output's region with {@code writeAndFlush}, the response's end with
 * {@code writeAndFlush}. What reaches the channel shows only when a flush passes.
 */
class GatherSmallOutputsTest {
    static final int MAX = 100;

    @TempDir
    Path dir;
    Path spill;
    byte[] content;
    EmbeddedChannel channel;
    final List<RandomAccessFile> opened = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        content = new byte[1000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31 + 7);
        }
        spill = Files.write(dir.resolve("file.out"), content);
        channel = new EmbeddedChannel(new GatherSmallOutputs(MAX));
    }

    @AfterEach
    void tearDown() throws IOException {
        channel.finishAndReleaseAll();
        for (RandomAccessFile f : opened) {
            f.close();
        }
    }

    private DefaultFileRegion region(long position, long count) throws IOException {
        RandomAccessFile file = new RandomAccessFile(spill.toFile(), "r");
        opened.add(file);
        return new DefaultFileRegion(file.getChannel(), position, count);
    }

    private static ByteBuf header(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    private byte[] expected(String header, int position, int count) {
        byte[] h = header.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + count];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(content, position, all, h.length, count);
        return all;
    }

    private byte[] nextBuffer() {
        ByteBuf buf = channel.readOutbound();
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void smallOutputsGoWithTheirHeadersInOneBufferEachAndAreFlushedAtTheResponsesEnd() throws IOException {
        DefaultFileRegion first = region(0, 40);
        ChannelFuture firstHeader = channel.write(header("h1:"));
        ChannelFuture firstWritten = channel.writeAndFlush(first);
        assertTrue(firstWritten.isSuccess(), "the region's write completes at once, so stock sends the next");
        assertFalse(first.isOpen(), "its file is closed before stock's listener could fadvise it");
        assertEquals(0, first.refCnt());
        assertNull(channel.readOutbound(), "stock's flush is held back");

        channel.write(header("h2:"));
        assertTrue(channel.writeAndFlush(region(300, 50)).isSuccess());
        assertNull(channel.readOutbound());
        ChannelFuture end = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);

        assertArrayEquals(expected("h1:", 0, 40), nextBuffer());
        assertArrayEquals(expected("h2:", 300, 50), nextBuffer());
        assertSame(LastHttpContent.EMPTY_LAST_CONTENT, channel.readOutbound());
        assertNull(channel.readOutbound());
        assertTrue(firstHeader.isSuccess(), "a header's promise is its gathered buffer's");
        assertTrue(end.isSuccess());
    }

    @Test
    void aLargerOutputPassesUntouchedAndFlushesTheSmallOnesBeforeIt() throws IOException {
        channel.write(header("h1:"));
        channel.writeAndFlush(region(0, 10));
        ByteBuf largeHeader = header("h2:");
        DefaultFileRegion large = region(100, MAX + 1);
        channel.write(largeHeader);
        ChannelFuture largeWritten = channel.writeAndFlush(large);

        assertArrayEquals(expected("h1:", 0, 10), nextBuffer());
        assertSame(largeHeader, channel.readOutbound());
        assertSame(large, channel.readOutbound(), "stock's own region, for stock to send from its file with its readahead");
        assertTrue(large.isOpen());
        assertEquals(1, large.refCnt());
        assertTrue(largeWritten.isSuccess());
        largeHeader.release();
        large.release();
    }

    @Test
    void heldBytesGoOutBeforeTheOutputThatWouldTakeThemPastTheLimit() throws IOException {
        channel.write(header("h1:"));
        channel.writeAndFlush(region(0, 47)); // 50 bytes held
        channel.write(header("h2:"));
        channel.writeAndFlush(region(50, 47)); // 100: the limit, still held
        assertNull(channel.readOutbound());
        channel.write(header("h3:"));
        channel.writeAndFlush(region(100, 1));

        assertArrayEquals(expected("h1:", 0, 47), nextBuffer());
        assertArrayEquals(expected("h2:", 50, 47), nextBuffer());
        assertNull(channel.readOutbound(), "the third waits for the next flush");
        channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        assertArrayEquals(expected("h3:", 100, 1), nextBuffer());
        assertSame(LastHttpContent.EMPTY_LAST_CONTENT, channel.readOutbound());
    }

    @Test
    void whileTheChannelIsNotWritableStockWaitsForTheNextMapOutput() throws IOException {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        channel.write(header("h1:"));
        ChannelFuture written = channel.writeAndFlush(region(0, 10));
        assertFalse(written.isDone(), "as stock's region would wait for the reducer");
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        channel.runPendingTasks();
        assertTrue(written.isSuccess());
    }

    @Test
    void aMapOutputThatCannotBeReadFailsItsRegionAndHeaderAndWritesNothing() throws IOException {
        ByteBuf header = header("h1:");
        ChannelFuture headerWritten = channel.write(header);
        DefaultFileRegion beyondTheEnd = region(content.length - 10, 20);
        ChannelFuture written = channel.writeAndFlush(beyondTheEnd);

        assertInstanceOf(EOFException.class, written.cause(), "stock's listener closes the connection on it");
        assertInstanceOf(EOFException.class, headerWritten.cause());
        assertEquals(0, header.refCnt());
        assertEquals(0, beyondTheEnd.refCnt());
        channel.flush();
        assertNull(channel.readOutbound());
    }

    @Test
    void aCloseSendsWhatIsGatheredButNotAHeaderWithoutItsOutput() throws IOException {
        channel.write(header("h1:"));
        channel.writeAndFlush(region(0, 10));
        ByteBuf orphan = header("h2:");
        ChannelFuture orphanWritten = channel.write(orphan);
        channel.close();

        assertArrayEquals(expected("h1:", 0, 10), nextBuffer());
        assertNull(channel.readOutbound());
        assertFalse(orphanWritten.isSuccess());
        assertEquals(0, orphan.refCnt());
    }
}
