package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import java.io.FilterOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Configures logback programmatically from kube-proxy's logging options, replacing any file-based configuration.
 *
 * <ul>
 *   <li>Levels: {@link VerbosityLevels} ({@code --v}, {@code --vmodule}).</li>
 *   <li>Destination, as klog: {@code --logtostderr=true} (default) writes to standard error only. Otherwise logs go
 *       to {@link LoggingOptions#effectiveLogFile()}, and standard error gets everything with
 *       {@code --alsologtostderr}, else only events at or above {@code --stderrthreshold} (default ERROR).</li>
 *   <li>Rotation: with {@code --log-file-max-size} N &gt; 0 the file is rolled at N megabytes into
 *       {@code FILE.1} ... {@code FILE.5} (newest first); 0 keeps one growing file.</li>
 *   <li>Format: {@link #TEXT_PATTERN} (one line: time, level, thread, logger, message) or {@link JsonLineLayout},
 *       always through {@link RedactingLayout} so credentials never reach a log.</li>
 * </ul>
 * Call once, early in {@code Main}, after the configuration is resolved.
 */
public final class LoggingSetup {

    /** The text format: UTC time, level, thread, logger, message; a stack trace follows on its own lines. */
    public static final String TEXT_PATTERN =
            "%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z',UTC} %-5level [%thread] %logger{36}: %msg%n%ex";

    /** Rotated files kept next to the log file. */
    public static final int ROTATED_FILES = 5;

    private LoggingSetup() {
    }

    /**
     * Configures the process's logback context.
     *
     * @throws IllegalStateException when slf4j is not bound to logback
     */
    public static void configure(LoggingOptions options) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            throw new IllegalStateException("slf4j is bound to " + factory.getClass().getName() + ", not logback");
        }
        configure(context, options, System.err);
    }

    /**
     * Configures {@code context}; {@code stderr} stands for standard error (tests pass a buffer). The stream is
     * never closed by logging.
     */
    public static void configure(LoggerContext context, LoggingOptions options, OutputStream stderr) {
        context.reset();
        if (context.getMDCAdapter() == null) {
            context.setMDCAdapter(new LogbackMDCAdapter());
        }
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Optional<Path> file = options.effectiveLogFile();
        if (file.isEmpty()) {
            root.addAppender(stderrAppender(context, options, stderr, Optional.empty()));
        } else {
            root.addAppender(fileAppender(context, options, file.get()));
            Optional<Level> threshold = options.alsoLogToStderr() ? Optional.empty()
                    : Optional.of(Level.toLevel(options.stderrThreshold(), Level.ERROR));
            root.addAppender(stderrAppender(context, options, stderr, threshold));
        }
        VerbosityLevels.levels(options.verbosity(), options.vmodule())
                .forEach((name, level) -> context.getLogger(name).setLevel(level));
    }

    private static Appender<ILoggingEvent> stderrAppender(LoggerContext context, LoggingOptions options,
                                                          OutputStream stderr, Optional<Level> threshold) {
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setName("stderr");
        appender.setEncoder(encoder(context, options));
        appender.setOutputStream(new FilterOutputStream(stderr) {
            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws java.io.IOException {
                flush();
            }
        });
        threshold.ifPresent(level -> {
            ThresholdFilter filter = new ThresholdFilter();
            filter.setLevel(level.toString());
            filter.setContext(context);
            filter.start();
            appender.addFilter(filter);
        });
        appender.start();
        return appender;
    }

    private static Appender<ILoggingEvent> fileAppender(LoggerContext context, LoggingOptions options, Path file) {
        String path = file.toAbsolutePath().toString();
        FileAppender<ILoggingEvent> appender;
        if (options.logFileMaxSizeMb() > 0) {
            RollingFileAppender<ILoggingEvent> rolling = new RollingFileAppender<>();
            FixedWindowRollingPolicy policy = new FixedWindowRollingPolicy();
            policy.setContext(context);
            policy.setParent(rolling);
            policy.setFileNamePattern(path + ".%i");
            policy.setMinIndex(1);
            policy.setMaxIndex(ROTATED_FILES);
            SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
            trigger.setContext(context);
            trigger.setMaxFileSize(new FileSize(options.logFileMaxSizeMb() * FileSize.MB_COEFFICIENT));
            trigger.setCheckIncrement(Duration.buildByMilliseconds(500));
            rolling.setRollingPolicy(policy);
            rolling.setTriggeringPolicy(trigger);
            appender = rolling;
            appender.setContext(context);
            appender.setFile(path);
            policy.start();
            trigger.start();
        } else {
            appender = new FileAppender<>();
            appender.setContext(context);
            appender.setFile(path);
        }
        appender.setName("file");
        appender.setAppend(true);
        appender.setEncoder(encoder(context, options));
        appender.start();
        return appender;
    }

    private static LayoutWrappingEncoder<ILoggingEvent> encoder(LoggerContext context, LoggingOptions options) {
        LayoutBase<ILoggingEvent> format;
        if (options.format().equals("json")) {
            format = new JsonLineLayout();
        } else {
            PatternLayout pattern = new PatternLayout();
            pattern.setPattern(TEXT_PATTERN);
            format = pattern;
        }
        format.setContext(context);
        RedactingLayout layout = new RedactingLayout(format);
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.start();
        return encoder;
    }
}
