package io.winproxy.agent.logging;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Layout;
import ch.qos.logback.core.LayoutBase;

/**
 * A layout that formats with another layout and then removes credentials from the whole text (message, arguments
 * and stack traces) with {@link Redactor}. Every appender of {@link LoggingSetup} writes through one, so no token
 * or password reaches a log. Thread-safe when the wrapped layout is.
 */
public final class RedactingLayout extends LayoutBase<ILoggingEvent> {
    private final Layout<ILoggingEvent> delegate;

    public RedactingLayout(Layout<ILoggingEvent> delegate) {
        this.delegate = delegate;
    }

    /** For logback.xml: {@link LoggingSetup#TEXT_PATTERN}, redacted. */
    public RedactingLayout() {
        PatternLayout pattern = new PatternLayout();
        pattern.setPattern(LoggingSetup.TEXT_PATTERN);
        this.delegate = pattern;
    }

    @Override
    public String doLayout(ILoggingEvent event) {
        return Redactor.redact(delegate.doLayout(event));
    }

    @Override
    public void start() {
        if (delegate.getContext() == null) {
            delegate.setContext(getContext());
        }
        delegate.start();
        super.start();
    }

    @Override
    public void stop() {
        super.stop();
        delegate.stop();
    }
}
