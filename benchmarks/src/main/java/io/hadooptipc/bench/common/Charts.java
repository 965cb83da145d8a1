package io.hadooptipc.bench.common;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * The PNG plots beside each benchmark's results.csv: XChart charts in one size and style,
 * so the README can show them side by side.
 */
public final class Charts {
    static final int WIDTH = 900;
    static final int HEIGHT = 540;

    static {
        // Benchmarks run on servers and in the testbed guest: no display.
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** A chart of lines with markers: one series per thing compared. */
    public static XYChart lines(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(chart.getStyler());
        return chart;
    }

    /** A chart of grouped bars: one group per category, one bar per thing compared. */
    public static CategoryChart bars(String title, String xTitle, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(chart.getStyler());
        chart.getStyler().setLabelsVisible(false);
        return chart;
    }

    /** A chart of lines over partition sizes on a log2 axis, labelled in KiB: x values from {@link #log2KiB}. */
    public static XYChart sizeChart(String title, String yTitle) {
        XYChart chart = lines(title, "partition", yTitle);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(
                x -> x == Math.rint(x) && x >= 0 ? (1 << x.intValue()) + " KiB" : "");
        return chart;
    }

    /** Partition sizes in bytes as x values of {@link #sizeChart}. */
    public static double[] log2KiB(int[] sizes) {
        return Arrays.stream(sizes).mapToDouble(s -> Math.log(s / 1024.0) / Math.log(2)).toArray();
    }

    /** Writes the chart to {@code out/name.png} and returns that path. */
    public static Path save(Path out, String name, Chart<?, ?> chart) throws IOException {
        Files.createDirectories(out);
        Path png = out.resolve(name + ".png");
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        return png;
    }

    private static void style(Styler styler) {
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setAntiAlias(true);
    }
}
