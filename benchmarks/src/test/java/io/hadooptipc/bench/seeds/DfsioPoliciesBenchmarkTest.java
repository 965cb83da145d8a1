package io.hadooptipc.bench.seeds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DfsioPoliciesBenchmarkTest {
    @Test
    void ratesAreTheMbPerSecondLinesOfATestDfsioResultFile() {
        List<String> lines = List.of(
                "----- TestDFSIO ----- : read",
                "            Date & time: Sun Nov 22 06:17:29 UTC 2026",
                "        Number of files: 4",
                " Total MBytes processed: 128",
                "      Throughput mb/sec: 385.52",
                " Average IO rate mb/sec: 395.4",
                "  IO rate std deviation: 12.7",
                "     Test exec time sec: 3.1");

        Map<String, Double> rates = DfsioPoliciesBenchmark.rates(lines);

        assertEquals(Map.of("Throughput mb/sec", 385.52, "Average IO rate mb/sec", 395.4), rates);
    }

    @Test
    void aResultFileWithoutRatesIsAnError() {
        assertThrows(IllegalArgumentException.class,
                () -> DfsioPoliciesBenchmark.rates(List.of("----- TestDFSIO ----- : read", "Throughput mb/sec: 3")));
    }

    @Test
    void deviceCountersAre512ByteSectorsInTheThirdAndSeventhFields() {
        String stat = "    2019        2  2791806     3252     1725      511  2457152    22453        0     2712"
                + "    25825        0        0        0        0      291      118\n";

        assertArrayEquals(new long[] {2791806L * 512, 2457152L * 512}, DfsioPoliciesBenchmark.bytesReadAndWritten(stat));
    }

    @Test
    void eachRowStartsOneRoundAndTheOthersFollowInTheirOrder() {
        List<String> firsts = IntStream.range(0, 4).mapToObj(round -> DfsioPoliciesBenchmark.rowOrder(round).get(0).name())
                .toList();
        assertEquals(List.of("HOT", "ONE_SSD", "ALL_SSD", "ONE_SSD SSD-first"), firsts);
        assertEquals(List.of("ALL_SSD", "ONE_SSD SSD-first", "HOT", "ONE_SSD"),
                DfsioPoliciesBenchmark.rowOrder(2).stream().map(DfsioPoliciesBenchmark.Row::name).toList());
        assertEquals(DfsioPoliciesBenchmark.rowOrder(1), DfsioPoliciesBenchmark.rowOrder(5));
    }
}
