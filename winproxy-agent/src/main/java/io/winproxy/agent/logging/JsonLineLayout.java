package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.math.BigDecimal;
import java.time.Instant;
import org.slf4j.event.KeyValuePair;

/**
 * {@code --logging-format=json}: one object per line in kube-proxy's JSON shape (component-base's zap encoder):
 * <pre>{"ts":1700000000.123456,"caller":"File.java:42","msg":"...","v":0,"key":"value"}</pre>
 * <ul>
 *   <li>{@code ts}: epoch seconds with microseconds; {@code caller}: the calling class's source file and line;
 *       {@code logger}: the Java logger name (zap's name key).</li>
 *   <li>Info-like events (info, warnings, debug, trace) carry {@code "v"}, the verbosity that shows them (0 for
 *       info and warnings, as klog's JSON logger has no warning level); errors carry none.</li>
 *   <li>A throwable adds {@code "err":"Class: message"} and, except for the client libraries below {@code --v=6}
 *       ({@link LibraryLoggers}), {@code "stacktrace"}.</li>
 *   <li>slf4j key/values follow as fields: numbers and booleans as JSON values, everything else as strings.</li>
 * </ul>
 * Thread-safe.
 */
public final class JsonLineLayout extends LayoutBase<ILoggingEvent> {
    private final LibraryLoggers libraries;

    public JsonLineLayout(LibraryLoggers libraries) {
        this.libraries = libraries;
    }

    @Override
    public String doLayout(ILoggingEvent event) {
        boolean oneLine = libraries.oneLine(event.getLoggerName());
        StringBuilder out = new StringBuilder(256);
        out.append("{\"ts\":").append(epochSeconds(event.getInstant()));
        out.append(",\"logger\":");
        string(out, event.getLoggerName());
        out.append(",\"caller\":");
        string(out, LogEvents.caller(event));
        out.append(",\"msg\":");
        string(out, oneLine ? LogEvents.oneLine(event.getFormattedMessage()) : event.getFormattedMessage());
        if (!event.getLevel().isGreaterOrEqual(Level.ERROR)) {
            out.append(",\"v\":").append(LogEvents.verbosity(event));
        }
        IThrowableProxy error = event.getThrowableProxy();
        if (error != null) {
            out.append(",\"err\":");
            string(out, oneLine ? LogEvents.oneLine(LogEvents.error(error)) : LogEvents.error(error));
            if (!oneLine) {
                out.append(",\"stacktrace\":");
                string(out, ThrowableProxyUtil.asString(error));
            }
        }
        for (KeyValuePair pair : LogEvents.keyValues(event)) {
            out.append(',');
            string(out, pair.key);
            out.append(':');
            if (pair.value instanceof Number || pair.value instanceof Boolean) {
                out.append(pair.value);
            } else {
                string(out, String.valueOf(pair.value));
            }
        }
        return out.append('}').append(CoreConstants.LINE_SEPARATOR).toString();
    }

    /** Seconds since the epoch with up to microsecond digits, trailing zeros dropped (as zap prints a float). */
    static String epochSeconds(Instant t) {
        BigDecimal micros = BigDecimal.valueOf(t.getEpochSecond()).movePointRight(6)
                .add(BigDecimal.valueOf(t.getNano() / 1000));
        return micros.movePointLeft(6).stripTrailingZeros().toPlainString();
    }

    private static void string(StringBuilder out, String value) {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(value == null ? "" : value, out);
        out.append('"');
    }
}
