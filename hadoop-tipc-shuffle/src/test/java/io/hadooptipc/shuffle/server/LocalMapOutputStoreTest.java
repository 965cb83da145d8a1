package io.hadooptipc.shuffle.server;

import io.hadooptipc.shuffle.MapOutputFixture;
import io.hadooptipc.shuffle.ShuffleWire;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.StockMapOutputs;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * LocalMapOutputStore is a copy of the stock handler's path layout and IndexCache (which our
 * handler cannot reach from its isolated class path): for the same job, user and map it must
 * ask the NodeManager's local directories for the same paths, and serve the same index record.
 * Runs against Hadoop 3.5 and 3.4, so an upgrade that changes stock's answers fails here.
 */
class LocalMapOutputStoreTest {
    private static final int MAPS = 3;
    private static final int REDUCES = 4;

    @TempDir
    java.nio.file.Path dir;

    @Test
    void asksTheLocalDirsForTheSamePathsAsStock() {
        String[][] cases = {
                {ShuffleWire.JOB, "alice", ShuffleWire.map(0)},
                {"job_1700000000000_12345", "bob.smith", "attempt_1700000000000_12345_m_000017_3"},
                {"job_42_0007", "carol", "attempt_42_0007_m_000000_0"},
        };
        for (String[] c : cases) {
            Recording ours = new Recording();
            Recording stock = new Recording();
            assertThrows(IOException.class, () -> new LocalMapOutputStore(ours::getLocalPathForRead, new JobConf())
                    .locate(c[0], c[1], c[2], 0));
            assertThrows(IOException.class, () -> new StockMapOutputs(new JobConf(), stock).locate(c[0], c[1], c[2], 0));
            assertEquals(stock.asked, ours.asked, String.join(" ", c));
        }
    }

    @Test
    void servesTheSameFileAndIndexRecordAsStock() throws Exception {
        MapOutputFixture outputs = new MapOutputFixture(dir, MAPS, REDUCES, 1000);
        LocalMapOutputStore ours = new LocalMapOutputStore(outputs.localDirs()::getLocalPathForRead, new JobConf());
        StockMapOutputs stock = new StockMapOutputs(new JobConf(), outputs.localDirs());
        for (String map : outputs.mapIds()) {
            for (int reduce = REDUCES - 1; reduce >= 0; reduce--) {
                MapOutputStore.Partition p = ours.locate(ShuffleWire.JOB, ShuffleWire.USER, map, reduce);
                StockMapOutputs.Located s = stock.locate(ShuffleWire.JOB, ShuffleWire.USER, map, reduce);
                String what = map + " reduce " + reduce;
                assertEquals(new File(s.data().toString()).getAbsoluteFile(), p.file().getAbsoluteFile(), what);
                assertEquals(s.index().startOffset, p.offset(), what);
                assertEquals(s.index().partLength, p.length(), what);
                assertEquals(s.index().rawLength, p.rawLength(), what);
            }
        }
    }

    @Test
    void refusesAReduceBeyondTheIndexAndAMissingMapAsStockDoes() throws Exception {
        MapOutputFixture outputs = new MapOutputFixture(dir, MAPS, REDUCES, 1000);
        LocalMapOutputStore ours = new LocalMapOutputStore(outputs.localDirs()::getLocalPathForRead, new JobConf());
        StockMapOutputs stock = new StockMapOutputs(new JobConf(), outputs.localDirs());
        String[] maps = {ShuffleWire.map(0), ShuffleWire.map(MAPS)};
        int[] reduces = {REDUCES, 0};
        for (int i = 0; i < maps.length; i++) {
            String map = maps[i];
            int reduce = reduces[i];
            assertThrows(IOException.class, () -> stock.locate(ShuffleWire.JOB, ShuffleWire.USER, map, reduce));
            assertThrows(IOException.class, () -> ours.locate(ShuffleWire.JOB, ShuffleWire.USER, map, reduce));
        }
    }

    /** Local dirs that note each path asked for and answer with one where nothing is. */
    private final class Recording implements AuxiliaryLocalPathHandler {
        final List<String> asked = new ArrayList<>();

        @Override
        public Path getLocalPathForRead(String path) {
            asked.add(path);
            return new Path(dir.resolve("nothing-here").resolve(path).toString());
        }

        @Override
        public Path getLocalPathForWrite(String path) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Path getLocalPathForWrite(String path, long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Iterable<Path> getAllLocalPathsForRead(String path) {
            throw new UnsupportedOperationException();
        }
    }
}
