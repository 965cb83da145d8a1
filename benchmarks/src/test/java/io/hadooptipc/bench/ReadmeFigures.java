package io.hadooptipc.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The performance figures a README quotes, and the committed results each one must come from
 * (figures live in {@code benchmarks/results/<name>/summary.md}; READMEs link them and quote
 * headlines). The rule is written out in benchmarks/README.md, "Figures in the READMEs".
 */
final class ReadmeFigures {
    private ReadmeFigures() {}

    /** A paragraph, list item, table or heading; a heading's links are those of its whole section. */
    record Block(int line, String text, String linkScope) {
        Set<String> linkedResults() {
            Set<String> names = new LinkedHashSet<>();
            Matcher m = RESULTS_LINK.matcher(linkScope);
            while (m.find()) {
                names.add(m.group(1));
            }
            return names;
        }
    }

    /** A number the README states as a measurement: {@code decimals} places, as written. */
    record Figure(String written, BigDecimal value, int decimals) {}

    private static final Pattern RESULTS_LINK = Pattern.compile("results/([a-z0-9][a-z0-9-]*)(?![\\w.-])");
    private static final Pattern LIST_ITEM = Pattern.compile("^\\s*(?:[-*]|\\d+\\.)\\s");
    private static final Pattern HEADING = Pattern.compile("^(#+)\\s");
    /** A number with thousands commas and any dotted parts: 1,024 or 0.62 or 6.1.0 (a version). */
    private static final Pattern NUMBER =
            Pattern.compile("(?<![\\w.,/])(\\d{1,3}(?:,\\d{3})+|\\d+)((?:\\.\\d+)*)(?![\\w.]*\\d|\\.\\w)");
    /** What makes an integer a figure: a ratio (1.5×, 4x) or a share (67%, 0.4 pp) right after it. */
    private static final Pattern RATIO_OR_SHARE_SUFFIX = Pattern.compile("^(?:[×x](?![\\w])|\\s?%|\\s?pp\\b)");
    private static final Pattern RANGE_TO_NEXT = Pattern.compile("^\\s?[–-]\\s?$");
    /**
     * Decimal numbers that are no measurement: versions of the software named before them ("Linux ≥
     * 5.6", "Hadoop 3.5 and 3.4"). With {@link #NOT_A_RESULT_AFTER}, the whole of what the rule lets
     * through without a results link.
     */
    private static final Pattern VERSION = Pattern.compile(
            "(?:Linux|QEMU|JNA|Hadoop|Maven|TIPC|Java|JDK|Tajo|kernel)\\s(?:≥\\s)?(?:\\d+\\.\\d+[^;:]{0,30}\\b(?:and|or)\\s)?$");
    /** A confidence level ("a 95% bootstrap interval") is a parameter of the method, not a result. */
    private static final Pattern NOT_A_RESULT_AFTER = Pattern.compile("^\\s?% (?:bootstrap|confidence)");
    /** A number in a results file; a dotted version such as 6.18.44 is none. */
    private static final Pattern RESULT_NUMBER = Pattern.compile("(?<![\\d.,])(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?(?!\\.?\\d)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern LINK_TARGET = Pattern.compile("\\]\\([^)]*\\)");

    /** Every README of the project: the Markdown files outside build output and the results. */
    static List<Path> readmes(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(p -> !root.relativize(p).toString().matches("(.*/)?(target|\\.git)/.*|benchmarks/results/.*"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The README's blocks, without fenced or indented code (commands, example output). */
    static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        int start = -1;
        boolean fenced = false;
        boolean code = false;
        boolean table = false;
        for (int i = 0; i <= lines.size(); i++) {
            String line = i < lines.size() ? lines.get(i) : "";
            boolean fence = line.stripLeading().startsWith("```");
            if (fenced && !fence) {
                continue;
            }
            fenced ^= fence;
            boolean blank = line.isBlank() || fence;
            boolean heading = HEADING.matcher(line).find();
            boolean tableRow = line.startsWith("|");
            boolean startsBlock = blank || heading || LIST_ITEM.matcher(line).find() || tableRow != table;
            if (startsBlock && start >= 0) {
                if (!code) {
                    blocks.add(block(lines, start, text.toString()));
                }
                text.setLength(0);
                start = -1;
            }
            if (blank) {
                continue;
            }
            if (start < 0) {
                start = i;
                code = line.startsWith("    ") && !LIST_ITEM.matcher(line).find();
                table = tableRow;
            }
            text.append(line).append('\n');
            if (heading) {
                blocks.add(block(lines, start, text.toString()));
                text.setLength(0);
                start = -1;
            }
        }
        return blocks;
    }

    private static Block block(List<String> lines, int start, String text) {
        Matcher heading = HEADING.matcher(text);
        if (!heading.find()) {
            return new Block(start + 1, text, text);
        }
        int level = heading.group(1).length();
        StringBuilder section = new StringBuilder(text);
        for (int i = start + 1; i < lines.size(); i++) {
            Matcher next = HEADING.matcher(lines.get(i));
            if (next.find() && next.group(1).length() <= level) {
                break;
            }
            section.append(lines.get(i)).append('\n');
        }
        return new Block(start + 1, text, section.toString());
    }

    /** The figures in a block's prose: decimals, ratios, shares, and the other end of their ranges. */
    static List<Figure> figures(String blockText) {
        String prose = LINK_TARGET.matcher(INLINE_CODE.matcher(blockText).replaceAll(" ")).replaceAll("]");
        List<Figure> figures = new ArrayList<>();
        Matcher m = NUMBER.matcher(prose);
        List<int[]> spans = new ArrayList<>();
        List<Boolean> isFigure = new ArrayList<>();
        while (m.find()) {
            String dotted = m.group(2);
            boolean version = dotted.indexOf('.', 1) > 0
                    || (!dotted.isEmpty() && VERSION.matcher(prose.substring(Math.max(0, m.start() - 50), m.start())).find());
            String after = prose.substring(m.end());
            boolean figure = !version && !NOT_A_RESULT_AFTER.matcher(after).find()
                    && (!dotted.isEmpty() || RATIO_OR_SHARE_SUFFIX.matcher(after).find());
            spans.add(new int[] {m.start(), m.end()});
            isFigure.add(figure);
        }
        // 24–29 %: the lower end of a range is a figure of the same kind as the upper.
        for (int i = spans.size() - 2; i >= 0; i--) {
            String between = prose.substring(spans.get(i)[1], spans.get(i + 1)[0]);
            if (isFigure.get(i + 1) && RANGE_TO_NEXT.matcher(between).find()) {
                isFigure.set(i, true);
            }
        }
        for (int i = 0; i < spans.size(); i++) {
            if (isFigure.get(i)) {
                String written = prose.substring(spans.get(i)[0], spans.get(i)[1]);
                BigDecimal value = new BigDecimal(written.replace(",", ""));
                figures.add(new Figure(written, value, Math.max(0, value.scale())));
            }
        }
        return figures;
    }

    /**
     * Every number in a results folder's text files (summary.md, the run's log), its sub-folders' too (a series'
     * sessions, {@code rounds-K-N/}); not the CSV's raw rows.
     */
    static List<BigDecimal> numbersIn(Path resultsDir) {
        List<BigDecimal> numbers = new ArrayList<>();
        try (Stream<Path> files = Files.walk(resultsDir)) {
            for (Path file : files.filter(f -> f.toString().matches(".*\\.(md|log|txt)")).toList()) {
                Matcher m = RESULT_NUMBER.matcher(Files.readString(file));
                while (m.find()) {
                    numbers.add(new BigDecimal(m.group().replace(",", "")));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return numbers;
    }

    /** A README may round a result to fewer places, never state more than the result has. */
    static boolean backedBy(Figure figure, List<BigDecimal> results) {
        for (BigDecimal n : results) {
            if (Math.max(0, n.scale()) >= figure.decimals()
                    && n.setScale(figure.decimals(), RoundingMode.HALF_UP).compareTo(figure.value()) == 0) {
                return true;
            }
        }
        return false;
    }
}
