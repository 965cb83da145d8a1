package io.hadooptipc.shuffle.server;

/**
 * Text that came from a request, made safe to log: any process may send one over TIPC, and a decoded
 * {@code %0A} in it would forge a log line of its own. Control characters are written as {@code \\uXXXX}
 * and the text is cut at {@link #MAX_CHARS}.
 */
final class LoggedText {
    static final int MAX_CHARS = 200;

    private LoggedText() {
    }

    static String of(String text) {
        int end = Math.min(text.length(), MAX_CHARS);
        StringBuilder b = new StringBuilder(end + 16);
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) || Character.getType(c) == Character.LINE_SEPARATOR
                    || Character.getType(c) == Character.PARAGRAPH_SEPARATOR) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (end < text.length()) {
            b.append("... (").append(text.length() - end).append(" more characters)");
        }
        return b.toString();
    }
}
