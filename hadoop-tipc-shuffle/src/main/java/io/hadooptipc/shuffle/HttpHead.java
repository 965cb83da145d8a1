package io.hadooptipc.shuffle;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The head of an HTTP/1.1 message: its start line and header fields. The shuffle
 * speaks plain HTTP over TIPC streams so that requests, hashes and status codes are
 * exactly the stock ones; this is the little of HTTP it needs (no chunking, no
 * continuation lines), strict about what it accepts.
 */
public final class HttpHead {
    private static final byte[] END = {'\r', '\n', '\r', '\n'};

    private final String startLine;
    // Field names as sent, in order; lookups ignore case.
    private final Map<String, List<String>> fields;

    private HttpHead(String startLine, Map<String, List<String>> fields) {
        this.startLine = startLine;
        this.fields = fields;
    }

    public static Builder builder(String startLine) {
        return new Builder(startLine);
    }

    /** Index just past the blank line that ends a head in {@code buf[from, to)}, or -1. */
    public static int endOf(byte[] buf, int from, int to) {
        return endOf(ByteBuffer.wrap(buf), from, to);
    }

    /** {@link #endOf(byte[], int, int)} over a buffer's bytes at absolute indices, its position and limit untouched. */
    public static int endOf(ByteBuffer buf, int from, int to) {
        for (int i = Math.max(from, 0); i + END.length <= to; i++) {
            if (buf.get(i) == '\r' && buf.get(i + 1) == '\n' && buf.get(i + 2) == '\r' && buf.get(i + 3) == '\n') {
                return i + END.length;
            }
        }
        return -1;
    }

    /** Parses a complete head (through its blank line); rejects anything malformed. */
    public static HttpHead parse(byte[] buf, int offset, int length) throws MalformedHttpException {
        String text = new String(buf, offset, length, StandardCharsets.ISO_8859_1);
        if (!text.endsWith("\r\n\r\n")) {
            throw new MalformedHttpException("head does not end with an empty line");
        }
        String[] lines = text.substring(0, text.length() - 4).split("\r\n", -1);
        String start = lines[0];
        if (start.isEmpty() || hasControl(start)) {
            throw new MalformedHttpException("bad start line");
        }
        Map<String, List<String>> fields = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int colon = line.indexOf(':');
            if (colon <= 0 || !isToken(line.substring(0, colon))) {
                throw new MalformedHttpException("bad header line " + (i + 1));
            }
            String value = line.substring(colon + 1).trim();
            if (hasControl(value)) {
                throw new MalformedHttpException("control character in header " + line.substring(0, colon));
            }
            add(fields, line.substring(0, colon), value);
        }
        return new HttpHead(start, fields);
    }

    public String startLine() {
        return startLine;
    }

    /** The first value of a field, ignoring the case of its name; null when absent. */
    public String field(String name) {
        for (Map.Entry<String, List<String>> e : fields.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue().get(0);
            }
        }
        return null;
    }

    /** Every field, in the order received, as {@code URLConnection#getHeaderFields} shows them. */
    public Map<String, List<String>> fields() {
        return Collections.unmodifiableMap(fields);
    }

    /** The number of fields, counting repeats. */
    public int size() {
        int n = 0;
        for (List<String> values : fields.values()) {
            n += values.size();
        }
        return n;
    }

    public byte[] encode() {
        StringBuilder head = new StringBuilder(256).append(startLine).append("\r\n");
        for (Map.Entry<String, List<String>> field : fields.entrySet()) {
            for (String value : field.getValue()) {
                head.append(field.getKey()).append(": ").append(value).append("\r\n");
            }
        }
        return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return startLine + " " + fields;
    }

    /** Appends a value to a field, keeping the fields in the order first seen. */
    private static void add(Map<String, List<String>> fields, String name, String value) {
        List<String> values = fields.get(name);
        if (values == null) {
            values = new ArrayList<>();
            fields.put(name, values);
        }
        values.add(value);
    }

    private static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasControl(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < ' ' && c != '\t') || c == 127) {
                return true;
            }
        }
        return false;
    }

    public static final class Builder {
        private final String startLine;
        private final Map<String, List<String>> fields = new LinkedHashMap<>();

        private Builder(String startLine) {
            this.startLine = startLine;
        }

        public Builder field(String name, Object value) {
            if (!isToken(name) || hasControl(String.valueOf(value))) {
                throw new IllegalArgumentException("not a valid header: " + name);
            }
            add(fields, name, String.valueOf(value));
            return this;
        }

        public HttpHead build() {
            if (startLine.isEmpty() || hasControl(startLine)) {
                throw new IllegalArgumentException("bad start line: " + startLine);
            }
            Map<String, List<String>> copy = new LinkedHashMap<>();
            for (Map.Entry<String, List<String>> field : fields.entrySet()) {
                copy.put(field.getKey(), Collections.unmodifiableList(new ArrayList<>(field.getValue())));
            }
            return new HttpHead(startLine, copy);
        }
    }

    /** A head that is not well-formed HTTP/1.1. */
    public static final class MalformedHttpException extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        public MalformedHttpException(String message) {
            super(message);
        }
    }
}
