package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.time.Instant;
import java.util.Map;
import org.slf4j.event.KeyValuePair;

/** Logging events with a fixed time and caller, for exact layout comparisons. */
final class LayoutEvents {
    /** 2024-11-23T08:50:30.864123Z. */
    static final Instant TIME = Instant.parse("2024-11-23T08:50:30.864123Z");

    private static final LoggerContext CONTEXT = new LoggerContext();

    private LayoutEvents() {
    }

    static LoggingEvent event(String logger, Level level, String message, Throwable error,
                              Map<String, Object> keyValues) {
        return event(logger, level, message, error, keyValues, null);
    }

    /** An event whose message has {@code {}} placeholders filled from {@code arguments}. */
    static LoggingEvent event(String logger, Level level, String message, Throwable error,
                              Map<String, Object> keyValues, Object[] arguments) {
        LoggingEvent event = new LoggingEvent("fqcn", CONTEXT.getLogger(logger), level, message, error, arguments);
        event.setInstant(TIME);
        event.setCallerData(new StackTraceElement[] {
                new StackTraceElement("io.winproxy.agent.sync.ProxySyncLoop", "sync", "ProxySyncLoop.java", 120)});
        keyValues.forEach((k, v) -> event.addKeyValuePair(new KeyValuePair(k, v)));
        return event;
    }
}
