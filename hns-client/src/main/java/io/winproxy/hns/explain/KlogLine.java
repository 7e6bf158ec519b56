package io.winproxy.hns.explain;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the HNS error inside a kube-proxy (klog) log line, where operators meet it: in the value of
 * {@code err="..."} (text format: a Go-quoted string, so the HCN error record inside reads
 * {@code {\"Success\":false,...}}, or klog's multi-line {@code err=<} block) or of {@code "err":"..."} (JSON format).
 * winkernel writes e.g.
 * {@code E0612 10:15:32.123456 4242 proxier.go:1386] "Policy creation failed" err="hcnCreateLoadBalancer failed in
 * Win32: The specified port already exists. (0x803b0013) {\"Success\":false,...,\"ErrorCode\":2151350291}"}.
 *
 * <p>The result is the HNS document to explain: the JSON inside the value when there is one, else an error record
 * built from the {@code (0x8...)} HRESULT the message carries (the message text itself is never classified).
 * Stateless.
 */
final class KlogLine {
    /** klog's text header: {@code Lmmdd hh:mm:ss.uuuuuu threadid file:line]}, anywhere in the line. */
    private static final Pattern HEADER = Pattern.compile("[IWEF]\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d+\\s+\\d+ [^\\]\\s]+\\] ");
    /** A key of klog's key/value list, followed by a quoted value or the start of a multi-line value. */
    private static final Pattern KEY = Pattern.compile("(?:^|\\s)([A-Za-z_][\\w.-]*)=(\"|<\\n)");
    private static final Pattern HRESULT = Pattern.compile("\\((0x[0-9a-fA-F]{8})\\)");
    /** The value of winproxy's own {@code hresult=0x803b0013} key. */
    private static final Pattern HRESULT_VALUE = Pattern.compile("0x[0-9a-fA-F]{8}");
    /** The same key written bare ({@code HnsErrors.Diagnosis#logValue}). */
    private static final Pattern BARE_HRESULT = Pattern.compile("(?:^|\\s)hresult=(0x[0-9a-fA-F]{8})(?:\\s|$)");
    /** The keys an error is logged under, in order of preference. */
    private static final List<String> ERROR_KEYS = List.of("err", "error");

    private KlogLine() {
    }

    /** Whether {@code text} holds a klog text line (its header). */
    static boolean isTextLine(String text) {
        return HEADER.matcher(text).find();
    }

    /** The HNS document inside a klog text line, or empty when {@code text} is not one or holds no HNS error. */
    static Optional<String> fromText(String text) {
        Matcher header = HEADER.matcher(text);
        if (!header.find()) {
            return Optional.empty();
        }
        String rest = text.substring(header.end());
        Map<String, String> values = textValues(rest);
        Matcher bare = BARE_HRESULT.matcher(rest);
        if (!values.containsKey("hresult") && bare.find()) {
            values.put("hresult", bare.group(1));
        }
        return errorDocument(values);
    }

    /** The HNS document inside a klog JSON record ({@code ts}, {@code msg} and key/values), or empty. */
    static Optional<String> fromJson(JsonNode record) {
        if (!record.isObject() || !record.has("msg") || !(record.has("ts") || record.has("caller"))) {
            return Optional.empty();
        }
        Map<String, String> values = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = record.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isTextual()) {
                values.put(e.getKey(), e.getValue().asText());
            }
        }
        return errorDocument(values);
    }

    /** Whether a parsed document is a klog JSON record rather than an HNS document. */
    static boolean isJsonRecord(JsonNode node) {
        return node.isObject() && node.has("msg") && (node.has("ts") || node.has("caller"));
    }

    private static Optional<String> errorDocument(Map<String, String> values) {
        List<String> candidates = new ArrayList<>();
        ERROR_KEYS.stream().filter(values::containsKey).forEach(k -> candidates.add(values.get(k)));
        values.forEach((k, v) -> {
            if (!ERROR_KEYS.contains(k)) {
                candidates.add(v);
            }
        });
        for (String value : candidates) {
            int start = value.indexOf('{');
            if (start >= 0 && value.lastIndexOf('}') > start) {
                return Optional.of(value.substring(start, value.lastIndexOf('}') + 1));
            }
        }
        String own = values.get("hresult");
        if (own != null && HRESULT_VALUE.matcher(own).matches()) {
            // winproxy's line: err="<op> failed: 0x... NAME" hresult=0x803b0013 cause="..."
            String message = values.getOrDefault("err", "");
            return Optional.of("{\"Success\":false,\"Error\":" + jsonString(message) + ",\"ErrorCode\":"
                    + Long.parseLong(own.substring(2), 16) + "}");
        }
        for (String value : candidates) {
            Matcher hr = HRESULT.matcher(value);
            if (hr.find()) {
                String message = value.substring(0, hr.start()).replaceFirst("^.*? failed in Win32: ", "").trim();
                return Optional.of("{\"Success\":false,\"Error\":" + jsonString(message) + ",\"ErrorCode\":"
                        + Long.parseLong(hr.group(1).substring(2), 16) + "}");
            }
        }
        return Optional.empty();
    }

    /** The key/values after the message of a klog text line, values unquoted. */
    static Map<String, String> textValues(String rest) {
        Map<String, String> out = new LinkedHashMap<>();
        int from = rest.startsWith("\"") ? skipQuoted(rest, 0) : 0;
        Matcher key = KEY.matcher(rest);
        while (from >= 0 && from < rest.length() && key.find(from)) {
            if (key.group(2).equals("\"")) {
                int end = skipQuoted(rest, key.end(2) - 1);
                if (end < 0) {
                    break;
                }
                out.put(key.group(1), unquote(rest.substring(key.end(2), end - 1)));
                from = end;
            } else {
                int close = rest.indexOf("\n >", key.end());
                int end = close < 0 ? rest.length() : close;
                StringBuilder value = new StringBuilder();
                for (String line : rest.substring(key.end(), end).split("\n", -1)) {
                    value.append(value.length() == 0 ? "" : "\n").append(line.startsWith("\t") ? line.substring(1)
                            : line);
                }
                out.put(key.group(1), value.toString());
                from = close < 0 ? rest.length() : close + 3;
            }
        }
        return out;
    }

    /** The offset just past the Go-quoted string starting at {@code open} (a '"'), or -1 when it does not end. */
    private static int skipQuoted(String s, int open) {
        for (int i = open + 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i + 1;
            }
        }
        return -1;
    }

    /** Go's strconv.Unquote of a string's body (the escapes klog writes). */
    static String unquote(String body) {
        StringBuilder out = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\' || i + 1 >= body.length()) {
                out.append(c);
                continue;
            }
            char e = body.charAt(++i);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'a' -> out.append('\u0007');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'v' -> out.append('\u000b');
                case 'x' -> i = hex(body, i, 2, out);
                case 'u' -> i = hex(body, i, 4, out);
                case 'U' -> i = hex(body, i, 8, out);
                default -> out.append(e);
            }
        }
        return out.toString();
    }

    private static int hex(String body, int at, int digits, StringBuilder out) {
        if (at + digits >= body.length()) {
            out.append(body, at - 1, body.length());
            return body.length();
        }
        out.appendCodePoint(Integer.parseInt(body.substring(at + 1, at + 1 + digits), 16));
        return at + digits;
    }

    private static String jsonString(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
