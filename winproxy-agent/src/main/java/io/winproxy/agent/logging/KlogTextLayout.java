package io.winproxy.agent.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Locale;
import org.slf4j.event.KeyValuePair;

/**
 * {@code --logging-format=text}: klog's structured line (what {@code klog.InfoS}/{@code ErrorS} print),
 * {@code Lmmdd hh:mm:ss.uuuuuu threadid file:line] "message" key="value" n=3}, so that log pipelines and klog
 * parsers written for kube-proxy read winproxy's logs.
 * <ul>
 *   <li>{@code L} is I, W or E; time is local time (as klog), in microseconds.</li>
 *   <li>{@code threadid} is the process id, right-aligned in 7 columns: klog prints the process id there.</li>
 *   <li>{@code file:line} is the calling class's source file and line.</li>
 *   <li>The message is always quoted, also for {@code {}}-formatted messages, and key/values (slf4j's
 *       {@code addKeyValue}) follow it; quoting and value forms are {@link KlogValues}'s.</li>
 *   <li>A throwable adds {@code err="Class: message: Cause: message"} right after the message, as klog's
 *       {@code ErrorS}; when {@link LibraryLoggers#stackTraces} says so the stack trace follows the summary inside
 *       the same quoted value.</li>
 *   <li>Every record is exactly one line: no argument, key, value or exception can add a line break, a control
 *       character or a terminal escape sequence.</li>
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
        KlogValues.quote(out, Redactor.redact(LogEvents.message(event)));
        IThrowableProxy error = event.getThrowableProxy();
        if (error != null) {
            out.append(" err=");
            KlogValues.quote(out, Redactor.redact(LogEvents.errorText(error,
                    libraries.stackTraces(event.getLoggerName()))));
        }
        for (KeyValuePair pair : LogEvents.keyValues(event)) {
            out.append(' ');
            KlogValues.key(out, pair.key);
            out.append('=');
            KlogValues.value(out, pair.value);
        }
        return out.append(CoreConstants.LINE_SEPARATOR).toString();
    }

    /** klog's line header: {@code Lmmdd hh:mm:ss.uuuuuu    pid file:line] }, L the severity letter. */
    public static String header(char severity, ZonedDateTime t, long pid, String caller) {
        return severity + String.format(Locale.ROOT, "%02d%02d %02d:%02d:%02d.%06d %7d ", t.getMonthValue(),
                t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1000, pid) + caller
                + "] ";
    }
}
