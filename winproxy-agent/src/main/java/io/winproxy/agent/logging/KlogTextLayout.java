package io.winproxy.agent.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import org.slf4j.event.KeyValuePair;

/**
 * {@code --logging-format=text}: klog's line, {@code Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg}, so that log
 * pipelines written for kube-proxy parse winproxy's logs.
 * <ul>
 *   <li>{@code L} is I, W or E; time is local time (as klog), in microseconds.</li>
 *   <li>{@code threadid} is the process id, right-aligned in 7 columns: klog prints the process id there.</li>
 *   <li>{@code file:line} is the calling class's source file and line.</li>
 *   <li>Structured events (slf4j key/values) print as klog's {@code InfoS}: {@code "msg" key="value" n=3}.</li>
 *   <li>A throwable adds {@code err="Class: message"}; its stack trace follows on its own lines, except for the
 *       client libraries below {@code --v=6} ({@link LibraryLoggers}), whose events stay on one line.</li>
 * </ul>
 * Thread-safe.
 */
public final class KlogTextLayout extends LayoutBase<ILoggingEvent> {
    private final ZoneId zone;
    private final long pid;
    private final LibraryLoggers libraries;

    /**
     * @param zone      the time zone of the header (klog: the machine's)
     * @param pid       the number printed as klog's thread id
     * @param libraries which events are cut to one line
     */
    public KlogTextLayout(ZoneId zone, long pid, LibraryLoggers libraries) {
        this.zone = zone;
        this.pid = pid;
        this.libraries = libraries;
    }

    /** The machine's zone and this process's id. */
    public KlogTextLayout(LibraryLoggers libraries) {
        this(ZoneId.systemDefault(), ProcessHandle.current().pid(), libraries);
    }

    @Override
    public String doLayout(ILoggingEvent event) {
        StringBuilder out = new StringBuilder(160);
        out.append(header(LogEvents.severity(event.getLevel()), event.getInstant().atZone(zone), pid,
                LogEvents.caller(event)));
        boolean oneLine = libraries.oneLine(event.getLoggerName());
        String message = event.getFormattedMessage();
        if (oneLine) {
            message = LogEvents.oneLine(message);
        }
        List<KeyValuePair> pairs = LogEvents.keyValues(event);
        IThrowableProxy error = event.getThrowableProxy();
        if (pairs.isEmpty()) {
            out.append(message == null ? "" : message);
        } else {
            quote(out, message);
        }
        if (error != null) {
            out.append(" err=");
            quote(out, oneLine ? LogEvents.oneLine(LogEvents.error(error)) : LogEvents.error(error));
        }
        for (KeyValuePair pair : pairs) {
            out.append(' ').append(pair.key).append('=');
            value(out, pair.value);
        }
        out.append(CoreConstants.LINE_SEPARATOR);
        if (error != null && !oneLine) {
            out.append(ThrowableProxyUtil.asString(error)).append(CoreConstants.LINE_SEPARATOR);
        }
        return out.toString();
    }

    /** klog's value formatting: numbers and booleans bare, everything else quoted. */
    /** klog's line header: {@code Lmmdd hh:mm:ss.uuuuuu    pid file:line] }, L the severity letter. */
    public static String header(char severity, ZonedDateTime t, long pid, String caller) {
        return severity + String.format(Locale.ROOT, "%02d%02d %02d:%02d:%02d.%06d %7d ", t.getMonthValue(),
                t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1000, pid) + caller
                + "] ";
    }

    static void value(StringBuilder out, Object value) {
        if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            quote(out, String.valueOf(value));
        }
    }

    /** Go's {@code strconv.Quote} for the characters that matter in a log line. */
    static void quote(StringBuilder out, String text) {
        out.append('"');
        String s = text == null ? "" : text;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
