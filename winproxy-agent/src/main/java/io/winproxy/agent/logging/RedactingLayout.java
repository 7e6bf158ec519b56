package io.winproxy.agent.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Layout;
import ch.qos.logback.core.LayoutBase;
import java.util.Map;

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

    /**
     * For {@link BootstrapConfigurator} (logging before {@link LoggingSetup} runs, and tools that never call it):
     * klog's structured text lines at {@code --v=0}, redacted, so that no winproxy line ever has another form.
     */
    public RedactingLayout() {
        this.delegate = new KlogTextLayout(new LibraryLoggers(0, Map.of()));
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
