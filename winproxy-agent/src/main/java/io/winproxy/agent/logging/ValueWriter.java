package io.winproxy.agent.logging;

import java.lang.reflect.Array;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Writes a key/value pair's value in the form klog's text lines ({@link KlogValues}) and component-base's JSON lines
 * ({@link JsonLineLayout}) share: an {@link Optional} as its content, a throwable as its error text, a map as
 * {@code {"key":value,...}}, a collection or array as {@code [value,...]}, nesting deeper than
 * {@link KlogValues#MAX_DEPTH} as {@code "..."}, and anything else as its quoted {@code toString()}; error and
 * {@code toString()} texts are redacted. The two formats differ only in how null, bare values and strings are
 * written, which the constructor takes. Stateless and thread-safe.
 */
final class ValueWriter {
    private final String nullLiteral;
    private final Predicate<Object> bare;
    private final BiConsumer<StringBuilder, String> string;

    /**
     * @param nullLiteral written for null
     * @param bare        the values written with their {@code toString()}, unquoted (numbers, booleans)
     * @param string      writes a string quoted and escaped in the format's way
     */
    ValueWriter(String nullLiteral, Predicate<Object> bare, BiConsumer<StringBuilder, String> string) {
        this.nullLiteral = nullLiteral;
        this.bare = bare;
        this.string = string;
    }

    void write(StringBuilder out, Object value) {
        write(out, value, 0);
    }

    private void write(StringBuilder out, Object value, int depth) {
        if (depth > KlogValues.MAX_DEPTH) {
            string.accept(out, "...");
        } else if (value == null) {
            out.append(nullLiteral);
        } else if (bare.test(value)) {
            out.append(value);
        } else if (value instanceof Optional<?> o) {
            write(out, o.orElse(null), depth + 1);
        } else if (value instanceof Throwable t) {
            string.accept(out, Redactor.redact(LogEvents.error(t)));
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.append(first ? "" : ",");
                first = false;
                string.accept(out, String.valueOf(e.getKey()));
                out.append(':');
                write(out, e.getValue(), depth + 1);
            }
            out.append('}');
        } else if (value instanceof Collection<?> items) {
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                out.append(first ? "" : ",");
                first = false;
                write(out, item, depth + 1);
            }
            out.append(']');
        } else if (value.getClass().isArray()) {
            out.append('[');
            for (int i = 0; i < Array.getLength(value); i++) {
                out.append(i == 0 ? "" : ",");
                write(out, Array.get(value, i), depth + 1);
            }
            out.append(']');
        } else {
            string.accept(out, Redactor.redact(KlogValues.text(value)));
        }
    }
}
