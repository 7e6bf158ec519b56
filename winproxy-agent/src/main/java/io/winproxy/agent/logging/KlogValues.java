package io.winproxy.agent.logging;

import java.util.Locale;

/**
 * klog's text serialisation of messages, keys and values, so that whatever a value contains (line breaks, quotes,
 * terminal escape sequences, unprintable characters) a record stays one parseable line. Stateless; thread-safe.
 *
 * <ul>
 *   <li>Strings are quoted as Go's {@code strconv.Quote} quotes them: {@code \"}, {@code \\}, {@code \a \b \f \n \r
 *       \t \v}; other ASCII control characters and DEL as {@code \xNN}; other unprintable characters (C1 controls,
 *       format characters, separators other than the space, unassigned and private-use code points, lone
 *       surrogates) as {@code &#92;uNNNN} or {@code &#92;UNNNNNNNN}. Printable Unicode is kept as it is.</li>
 *   <li>Numbers and booleans are bare ({@code n=3 ready=true}), {@code null} is {@code <nil>}.</li>
 *   <li>Collections (not any {@code Iterable}: a {@code Path} is one, of itself) and arrays print as {@code ["a","b",3]} and maps as {@code {"k":"v"}} with the same rules for
 *       their elements (kube-proxy prints IP lists as {@code IPs=["172.18.0.2"]}).</li>
 *   <li>A throwable prints as its one-line summary ({@link LogEvents#error}); anything else as its
 *       {@code toString()}, quoted.</li>
 *   <li>Strings and throwables pass through {@link Redactor} before quoting (escaping would hide a JSON
 *       {@code "token":"..."} from the redaction of the whole line).</li>
 *   <li>Keys are printed bare when they consist of letters, digits and {@code _ . / -}, else quoted.</li>
 * </ul>
 */
public final class KlogValues {
    private KlogValues() {
    }

    /** A string as klog quotes it (see the class comment). */
    public static String quote(String text) {
        StringBuilder out = new StringBuilder(text == null ? 2 : text.length() + 2);
        quote(out, text);
        return out.toString();
    }

    /** Appends {@code text} quoted as Go's {@code strconv.Quote}; null as {@code ""}. */
    public static void quote(StringBuilder out, String text) {
        out.append('"');
        String s = text == null ? "" : text;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            switch (cp) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case 0x07 -> out.append("\\a");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case 0x0b -> out.append("\\v");
                default -> {
                    if (cp < 0x20 || cp == 0x7f) {
                        out.append(String.format(Locale.ROOT, "\\x%02x", cp));
                    } else if (printable(cp)) {
                        out.appendCodePoint(cp);
                    } else if (cp <= 0xffff) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", cp));
                    } else {
                        out.append(String.format(Locale.ROOT, "\\U%08x", cp));
                    }
                }
            }
        }
        out.append('"');
    }

    /** Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    static boolean printable(int cp) {
        if (cp == ' ') {
            return true;
        }
        return switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
                 Character.UNASSIGNED, Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR,
                 Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }

    /** Appends a key: bare when it is a plain identifier, else quoted. */
    public static void key(StringBuilder out, String key) {
        if (key != null && !key.isEmpty() && key.chars().allMatch(KlogValues::keyChar)) {
            out.append(key);
        } else {
            quote(out, key);
        }
    }

    private static boolean keyChar(int c) {
        return c < 0x80 && (Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '/' || c == '-');
    }

    /** Appends a value in klog's text form (see the class comment). */
    public static void value(StringBuilder out, Object value) {
        WRITER.write(out, value);
    }

    /** Nesting deeper than this prints the nested value's text (a collection that contains itself ends). */
    static final int MAX_DEPTH = 8;

    private static final ValueWriter WRITER = new ValueWriter("<nil>",
            value -> value instanceof Number || value instanceof Boolean, KlogValues::quote);

    /** {@code toString()}, or a placeholder when it throws: a log line never fails because of a value. */
    static String text(Object value) {
        try {
            return String.valueOf(value);
        } catch (RuntimeException e) {
            return "<" + value.getClass().getName() + ": toString failed: " + e + ">";
        }
    }
}
