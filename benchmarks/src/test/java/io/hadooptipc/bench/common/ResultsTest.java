package io.hadooptipc.bench.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;

class ResultsTest {
    @TempDir
    Path out;

    @Test
    void plotsArePngsOfTheSharedSizeAndTheSummaryShowsThem() throws Exception {
        XYChart rates = Charts.lines("rate", "size", "MB/s");
        rates.addSeries("tipc", new double[] {1, 2, 4}, new double[] {10, 20, 15});
        CategoryChart cpu = Charts.bars("cpu", "protocol", "%");
        cpu.addSeries("busy", java.util.List.of("tipc", "tcp"), java.util.List.of(30, 40));
        Charts.save(out, "plot", rates);
        Charts.save(out, "plot-cpu", cpu);

        Results.write(out, "example", "size,rate\n1,10\n", "Body.\n");

        BufferedImage png = ImageIO.read(out.resolve("plot.png").toFile());
        assertEquals(Charts.WIDTH, png.getWidth());
        assertEquals(Charts.HEIGHT, png.getHeight());
        String summary = Files.readString(out.resolve("summary.md"));
        assertTrue(summary.startsWith("# example\n\nMachine: "), summary);
        assertTrue(summary.contains("Body.\n\n![plot-cpu.png](plot-cpu.png)\n\n![plot.png](plot.png)\n"), summary);
    }
}
