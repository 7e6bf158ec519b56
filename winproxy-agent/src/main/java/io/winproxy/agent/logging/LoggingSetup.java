package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.spi.FilterReply;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import java.io.FilterOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Configures logback programmatically from kube-proxy's logging options, replacing any file-based configuration.
 *
 * <ul>
 *   <li>Levels: {@link VerbosityLevels} ({@code --v}, {@code --vmodule}); the client libraries log one line per
 *       event below {@code --v=6} ({@link LibraryLoggers}).</li>
 *   <li>Destination, as klog: {@code --logtostderr=true} (default) writes to standard error only (with
 *       {@code --log-<format>-split-stream}: info to standard output, errors to standard error). Otherwise logs go
 *       to {@code --log-file}, or to klog-named per-severity files in {@code --log-dir} ({@link KlogFileAppender});
 *       standard error then gets everything with {@code --alsologtostderr}, else only events at or above
 *       {@code --stderrthreshold} (default ERROR).</li>
 *   <li>Rotation: with {@code --log-file-max-size} N &gt; 0 (default {@value LoggingOptions#DEFAULT_MAX_SIZE_MB}) a
 *       {@code --log-file} is rolled at N megabytes into {@code FILE.1} ... {@code FILE.5} (newest first), and each
 *       {@code --log-dir} severity starts a new file at N megabytes, keeping its newest {@value #ROTATED_FILES} + 1;
 *       0 keeps one growing file.</li>
 *   <li>Format: {@link KlogTextLayout} (klog's header) or {@link JsonLineLayout} (kube-proxy's JSON), always through
 *       {@link RedactingLayout} so credentials never reach a log.</li>
 * </ul>
 * Call once, early in {@code Main}, after the configuration is resolved.
 */
public final class LoggingSetup {

    /** Rotated files kept besides the current one. */
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
        configure(context, options, System.out, System.err);
    }

    /** {@link #configure(LoggerContext, LoggingOptions, OutputStream, OutputStream)} with everything on stderr. */
    public static void configure(LoggerContext context, LoggingOptions options, OutputStream stderr) {
        configure(context, options, stderr, stderr);
    }

    /**
     * Configures {@code context}; {@code stdout} and {@code stderr} stand for the standard streams (tests pass
     * buffers). The streams are never closed by logging.
     */
    public static void configure(LoggerContext context, LoggingOptions options, OutputStream stdout,
                                 OutputStream stderr) {
        configure(context, options, stdout, stderr, KlogFileNames.forThisProcess(), ZoneId.systemDefault());
    }

    /** The full form: klog's file names and time zone given (tests). */
    static void configure(LoggerContext context, LoggingOptions options, OutputStream stdout, OutputStream stderr,
                          KlogFileNames names, ZoneId zone) {
        context.reset();
        if (context.getMDCAdapter() == null) {
            context.setMDCAdapter(new LogbackMDCAdapter());
        }
        LibraryLoggers libraries = new LibraryLoggers(options.verbosity(), Vmodule.entries(options.vmodule()));
        Format format = new Format(options.format(), libraries, names.pid(), zone);
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Optional<Path> file = options.effectiveLogFile();
        Optional<Path> dir = options.klogDirectory();
        if (file.isEmpty() && dir.isEmpty()) {
            if (options.splitStream()) {
                root.addAppender(streamAppender(context, "stdout", format, stdout, belowError(context)));
                root.addAppender(streamAppender(context, "stderr", format, stderr, threshold(context, Level.ERROR)));
            } else {
                root.addAppender(streamAppender(context, "stderr", format, stderr, null));
            }
        } else {
            if (file.isPresent()) {
                root.addAppender(fileAppender(context, options, format, file.get()));
            } else {
                long maxBytes = options.logFileMaxSizeMb() * FileSize.MB_COEFFICIENT;
                for (String severity : List.of("INFO", "WARNING", "ERROR")) {
                    KlogFileAppender appender = new KlogFileAppender(dir.get(), names, severity, maxBytes,
                            ROTATED_FILES + 1, zone);
                    appender.setContext(context);
                    appender.setEncoder(encoder(context, format));
                    appender.start();
                    root.addAppender(appender);
                }
            }
            Filter<ILoggingEvent> filter = options.alsoLogToStderr() ? null
                    : threshold(context, Level.toLevel(options.stderrThreshold(), Level.ERROR));
            root.addAppender(streamAppender(context, "stderr", format, stderr, filter));
        }
        VerbosityLevels.levels(options.verbosity(), options.vmodule())
                .forEach((name, level) -> context.getLogger(name).setLevel(level));
    }

    /** The chosen line format. */
    private record Format(String name, LibraryLoggers libraries, long pid, ZoneId zone) {
        LayoutBase<ILoggingEvent> layout() {
            return name.equals("json") ? new JsonLineLayout(libraries) : new KlogTextLayout(zone, pid, libraries);
        }
    }

    private static Appender<ILoggingEvent> streamAppender(LoggerContext context, String name, Format format,
                                                          OutputStream stream, Filter<ILoggingEvent> filter) {
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setName(name);
        appender.setEncoder(encoder(context, format));
        boolean counted = name.equals("stderr");
        if (counted) {
            StderrWrites.counting();
        }
        appender.setOutputStream(new FilterOutputStream(stream) {
            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                out.write(b, off, len);
                if (counted) {
                    StderrWrites.wrote(len);
                }
            }

            @Override
            public void close() throws java.io.IOException {
                flush();
            }
        });
        if (filter != null) {
            appender.addFilter(filter);
        }
        appender.start();
        return appender;
    }

    private static Filter<ILoggingEvent> threshold(LoggerContext context, Level level) {
        ThresholdFilter filter = new ThresholdFilter();
        filter.setLevel(level.toString());
        filter.setContext(context);
        filter.start();
        return filter;
    }

    private static Filter<ILoggingEvent> belowError(LoggerContext context) {
        Filter<ILoggingEvent> filter = new Filter<>() {
            @Override
            public FilterReply decide(ILoggingEvent event) {
                return event.getLevel().isGreaterOrEqual(Level.ERROR) ? FilterReply.DENY : FilterReply.NEUTRAL;
            }
        };
        filter.setContext(context);
        filter.start();
        return filter;
    }

    private static Appender<ILoggingEvent> fileAppender(LoggerContext context, LoggingOptions options, Format format,
                                                        Path file) {
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
        appender.setEncoder(encoder(context, format));
        appender.start();
        return appender;
    }

    private static LayoutWrappingEncoder<ILoggingEvent> encoder(LoggerContext context, Format format) {
        LayoutBase<ILoggingEvent> layout0 = format.layout();
        layout0.setContext(context);
        RedactingLayout layout = new RedactingLayout(layout0);
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
