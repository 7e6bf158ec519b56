package io.winproxy.agent.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.time.Instant;

/**
 * {@code --logging-format=json}: one JSON object per line with {@code ts} (ISO-8601, UTC), {@code level},
 * {@code thread}, {@code logger}, {@code msg} and, for failures, {@code err} (the stack trace). Thread-safe.
 */
public final class JsonLineLayout extends LayoutBase<ILoggingEvent> {

    @Override
    public String doLayout(ILoggingEvent event) {
        StringBuilder out = new StringBuilder(256);
        out.append("{\"ts\":");
        field(out, Instant.ofEpochMilli(event.getTimeStamp()).toString());
        out.append(",\"level\":");
        field(out, event.getLevel().toString());
        out.append(",\"thread\":");
        field(out, event.getThreadName());
        out.append(",\"logger\":");
        field(out, event.getLoggerName());
        out.append(",\"msg\":");
        field(out, event.getFormattedMessage());
        IThrowableProxy error = event.getThrowableProxy();
        if (error != null) {
            out.append(",\"err\":");
            field(out, ThrowableProxyUtil.asString(error));
        }
        return out.append('}').append(CoreConstants.LINE_SEPARATOR).toString();
    }

    private static void field(StringBuilder out, String value) {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(value == null ? "" : value, out);
        out.append('"');
    }
}
