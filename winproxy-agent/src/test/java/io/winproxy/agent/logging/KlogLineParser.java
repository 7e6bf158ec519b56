package io.winproxy.agent.logging;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An independent parser of klog's structured text lines, as a log pipeline would read them:
 * {@code Lmmdd hh:mm:ss.uuuuuu pid file:line] "message" key=value ...}, where a value is a Go-quoted string
 * (unquoted here with Go's escapes), a bracketed list or braced map (kept as raw text), or a bare token. Strict: it
 * throws on anything else, so a test fails on a line a klog parser could not read.
 */
public final class KlogLineParser {
    private static final Pattern HEADER = Pattern.compile(
            "^([IWEF])(\\d{4}) (\\d{2}:\\d{2}:\\d{2}\\.\\d{6}) +(\\d+) ([^ \\]]+:\\d+)\\] ");

    public record Line(char severity, String date, String time, long pid, String caller, String message,
                Map<String, String> values) {
    }

    private KlogLineParser() {
    }

    public static Line parse(String line) {
        if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("not one line: " + line);
        }
        Matcher m = HEADER.matcher(line);
        if (!m.find()) {
            throw new IllegalArgumentException("no klog header: " + line);
        }
        int[] pos = {m.end()};
        String message = quoted(line, pos);
        Map<String, String> values = new LinkedHashMap<>();
        while (pos[0] < line.length()) {
            expect(line, pos, ' ');
            int eq = line.indexOf('=', pos[0]);
            if (eq < 0) {
                throw new IllegalArgumentException("key without value at " + pos[0] + ": " + line);
            }
            String key = line.substring(pos[0], eq);
            if (!key.matches("[A-Za-z0-9_./-]+")) {
                throw new IllegalArgumentException("bad key " + key + ": " + line);
            }
            pos[0] = eq + 1;
            String value;
            char c = pos[0] < line.length() ? line.charAt(pos[0]) : ' ';
            if (c == '"') {
                value = quoted(line, pos);
            } else if (c == '[' || c == '{') {
                value = bracketed(line, pos);
            } else {
                int end = line.indexOf(' ', pos[0]);
                end = end < 0 ? line.length() : end;
                value = line.substring(pos[0], end);
                if (value.isEmpty() || value.contains("\"")) {
                    throw new IllegalArgumentException("bad bare value for " + key + ": " + line);
                }
                pos[0] = end;
            }
            values.put(key, value);
        }
        return new Line(m.group(1).charAt(0), m.group(2), m.group(3), Long.parseLong(m.group(4)), m.group(5),
                message, values);
    }

    private static void expect(String line, int[] pos, char c) {
        if (pos[0] >= line.length() || line.charAt(pos[0]) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + pos[0] + ": " + line);
        }
        pos[0]++;
    }

    /** A Go-quoted string starting at pos, unquoted; pos moves past the closing quote. */
    static String quoted(String line, int[] pos) {
        expect(line, pos, '"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos[0] >= line.length()) {
                throw new IllegalArgumentException("unterminated string: " + line);
            }
            char c = line.charAt(pos[0]++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("raw control character in a quoted string: " + line);
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = line.charAt(pos[0]++);
            switch (e) {
                case '"' -> out.append('"');
                case '\\' -> out.append('\\');
                case 'a' -> out.append('\u0007');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'v' -> out.append('\u000b');
                case 'x' -> out.append((char) hex(line, pos, 2));
                case 'u' -> out.appendCodePoint(hex(line, pos, 4));
                case 'U' -> out.appendCodePoint(hex(line, pos, 8));
                default -> throw new IllegalArgumentException("bad escape \\" + e + ": " + line);
            }
        }
    }

    private static int hex(String line, int[] pos, int digits) {
        int v = Integer.parseUnsignedInt(line.substring(pos[0], pos[0] + digits), 16);
        pos[0] += digits;
        return v;
    }

    /** A [...] or {...} value with quoted strings inside, kept raw. */
    private static String bracketed(String line, int[] pos) {
        int start = pos[0];
        int depth = 0;
        while (pos[0] < line.length()) {
            char c = line.charAt(pos[0]);
            if (c == '"') {
                quoted(line, pos);
                continue;
            }
            pos[0]++;
            if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                depth--;
                if (depth == 0) {
                    return line.substring(start, pos[0]);
                }
            }
        }
        throw new IllegalArgumentException("unterminated list: " + line);
    }
}
