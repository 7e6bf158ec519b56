package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import org.slf4j.event.KeyValuePair;

/**
 * {@code --logging-format=json}: one object per line in exactly the shape of kube-proxy's JSON logs (component-base's
 * zap encoder), nothing else:
 * <pre>{"ts":1732650052123.456,"caller":"sync/ProxySyncLoop.java:42","msg":"...","v":0,"key":"value"}</pre>
 * <ul>
 *   <li>{@code ts}: epoch milliseconds as a float (component-base's {@code epochMillisTimeEncoder}: nanoseconds
 *       / 1e6, printed as Go prints a float64, shortest form, no exponent).</li>
 *   <li>{@code caller}: the calling class's package's last segment and source file and line (zap's short caller,
 *       {@code dir/file:line}).</li>
 *   <li>{@code msg}: the message (placeholders filled).</li>
 *   <li>Info-like events (info, warnings, debug, trace) carry {@code "v"}, the verbosity that shows them (0 for
 *       info and warnings, as klog's JSON logger has no warning level); errors carry none.</li>
 *   <li>A throwable adds {@code "err":"Class: message"} (with the stack trace after a line break inside the string
 *       when {@link LibraryLoggers#stackTraces} says so).</li>
 *   <li>slf4j key/values follow as fields: numbers and booleans as JSON values, {@code null} as null, collections
 *       and arrays as arrays, maps as objects, everything else as strings.</li>
 * </ul>
 * Strings are JSON-escaped (control characters as {@code &#92;u00XX}), so a record is always one line. Thread-safe.
 */
public final class JsonLineLayout extends LayoutBase<ILoggingEvent> {
    /** Values as zap writes them: JSON null, finite numbers and booleans bare, the rest as JSON strings. */
    private static final ValueWriter VALUES = new ValueWriter("null",
            value -> value instanceof Number n && Double.isFinite(n.doubleValue()) || value instanceof Boolean,
            JsonLineLayout::string);

    private final LibraryLoggers libraries;

    public JsonLineLayout(LibraryLoggers libraries) {
        this.libraries = libraries;
    }

    @Override
    public String doLayout(ILoggingEvent event) {
        StringBuilder out = new StringBuilder(256);
        out.append("{\"ts\":").append(epochMillis(event.getInstant()));
        out.append(",\"caller\":");
        string(out, caller(event));
        out.append(",\"msg\":");
        string(out, Redactor.redact(LogEvents.message(event)));
        if (!event.getLevel().isGreaterOrEqual(Level.ERROR)) {
            out.append(",\"v\":").append(LogEvents.verbosity(event));
        }
        IThrowableProxy error = event.getThrowableProxy();
        if (error != null) {
            out.append(",\"err\":");
            string(out, Redactor.redact(LogEvents.errorText(error, libraries.stackTraces(event.getLoggerName()))));
        }
        for (KeyValuePair pair : LogEvents.keyValues(event)) {
            out.append(',');
            string(out, pair.key);
            out.append(':');
            VALUES.write(out, pair.value);
        }
        return out.append('}').append(CoreConstants.LINE_SEPARATOR).toString();
    }

    /** zap's short caller: the last package segment, the source file and the line. */
    static String caller(ILoggingEvent event) {
        String file = LogEvents.caller(event);
        StackTraceElement[] callers = event.getCallerData();
        if (callers == null || callers.length == 0 || callers[0].getClassName() == null) {
            return file;
        }
        String className = callers[0].getClassName();
        int lastDot = className.lastIndexOf('.');
        if (lastDot <= 0) {
            return file;
        }
        String pkg = className.substring(0, lastDot);
        return pkg.substring(pkg.lastIndexOf('.') + 1) + "/" + file;
    }

    /**
     * Milliseconds since the epoch as component-base writes them: {@code float64(nanos) / 1e6} in Go's shortest
     * decimal form, e.g. {@code 1732351830864.123}.
     */
    static String epochMillis(Instant t) {
        long nanos = t.getEpochSecond() * 1_000_000_000L + t.getNano();
        return shortest(nanos / 1e6);
    }

    /**
     * Go's {@code strconv.FormatFloat(f, 'f', -1, 64)}: the fewest digits that read back as the same double (the
     * nearest such decimal), without an exponent. ({@code Double.toString} is not always shortest before Java 19.)
     */
    static String shortest(double value) {
        BigDecimal exact = new BigDecimal(value);
        for (int digits = 1; digits <= 17; digits++) {
            BigDecimal rounded = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (rounded.doubleValue() == value) {
                return rounded.stripTrailingZeros().toPlainString();
            }
        }
        return exact.stripTrailingZeros().toPlainString();
    }

    /** A JSON string; a lone surrogate (not encodable) becomes U+FFFD, as zap writes invalid UTF-8. */
    private static void string(StringBuilder out, String value) {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(wellFormed(value == null ? "" : value), out);
        out.append('"');
    }

    private static String wellFormed(String s) {
        StringBuilder fixed = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean lone = Character.isHighSurrogate(c)
                    ? i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))
                    : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
            if (lone && fixed == null) {
                fixed = new StringBuilder(s.substring(0, i));
            }
            if (fixed != null) {
                fixed.append(lone ? '\ufffd' : c);
            }
        }
        return fixed == null ? s : fixed.toString();
    }
}
