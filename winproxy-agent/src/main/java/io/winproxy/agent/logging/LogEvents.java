package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import java.util.List;
import org.slf4j.event.KeyValuePair;

/** What the klog text and the JSON layouts read from a logback event, in klog's terms. Stateless. */
final class LogEvents {
    private LogEvents() {
    }

    /** The calling class's source file and line ({@code ProxySyncLoop.java:120}), or klog's {@code ???:1}. */
    static String caller(ILoggingEvent event) {
        StackTraceElement[] callers = event.getCallerData();
        if (callers == null || callers.length == 0 || callers[0].getFileName() == null) {
            return "???:1";
        }
        return callers[0].getFileName() + ":" + Math.max(callers[0].getLineNumber(), 0);
    }

    /** klog's severity letter: I (info, debug, trace), W, E. */
    static char severity(Level level) {
        if (level.isGreaterOrEqual(Level.ERROR)) {
            return 'E';
        }
        return level.isGreaterOrEqual(Level.WARN) ? 'W' : 'I';
    }

    /**
     * The verbosity at which an info-like event shows ({@code "v"} in JSON): 0 for info and warnings; for debug
     * and trace the {@code --v} that enables them (winproxy 2/4, the libraries 6/9).
     */
    static int verbosity(ILoggingEvent event) {
        Level level = event.getLevel();
        if (level.isGreaterOrEqual(Level.INFO)) {
            return 0;
        }
        boolean library = LibraryLoggers.isLibrary(event.getLoggerName());
        if (level.isGreaterOrEqual(Level.DEBUG)) {
            return library ? LibraryLoggers.DETAIL_VERBOSITY : 2;
        }
        return library ? 9 : 4;
    }

    /** The structured key/value pairs ({@code logger.atInfo().addKeyValue(...)}), never null. */
    static List<KeyValuePair> keyValues(ILoggingEvent event) {
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        return pairs == null ? List.of() : pairs;
    }

    /** The first line of a throwable: its class and message, with the causes' messages ("err" of klog). */
    static String error(IThrowableProxy error) {
        StringBuilder out = new StringBuilder(error.getClassName());
        if (error.getMessage() != null) {
            out.append(": ").append(error.getMessage());
        }
        IThrowableProxy cause = error.getCause();
        for (int depth = 0; cause != null && depth < 5; depth++, cause = cause.getCause()) {
            out.append(": ").append(cause.getClassName());
            if (cause.getMessage() != null) {
                out.append(": ").append(cause.getMessage());
            }
        }
        return out.toString();
    }

    /** {@link #error(IThrowableProxy)} for a throwable passed as a key/value. */
    static String error(Throwable error) {
        return error(new ch.qos.logback.classic.spi.ThrowableProxy(error));
    }

    /**
     * The text of klog's {@code err} for an event's throwable: its one-line summary, and when {@code withTrace}
     * also its stack trace after a line break (the layouts escape it, so the record stays one line).
     */
    static String errorText(IThrowableProxy error, boolean withTrace) {
        String summary = error(error);
        if (!withTrace) {
            return summary;
        }
        String trace = ch.qos.logback.classic.spi.ThrowableProxyUtil.asString(error);
        return summary + "\n" + trace.stripTrailing();
    }

    /** The message as written: the formatted message (placeholders filled), "" for none. */
    static String message(ILoggingEvent event) {
        String message = event.getFormattedMessage();
        return message == null ? "" : message;
    }
}
