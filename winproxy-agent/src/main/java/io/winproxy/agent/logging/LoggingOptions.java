package io.winproxy.agent.logging;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How the agent logs: kube-proxy's (klog's) logging flags and the {@code logging:} section of the configuration
 * file, already validated. Immutable.
 *
 * @param verbosity        {@code --v}: 0-1 INFO, 2-3 DEBUG, 4+ TRACE for winproxy loggers, 6+ DEBUG for the
 *                         Kubernetes client (see {@link VerbosityLevels})
 * @param vmodule          {@code --vmodule}: {@code logger=level} pairs, comma-separated, "" for none
 * @param format           {@code text} or {@code json}
 * @param flushFrequency   accepted for compatibility; every event is written immediately
 * @param logToStderr      {@code --logtostderr} (default true): log only to standard error, no files
 * @param alsoLogToStderr  {@code --alsologtostderr}: with file logging, copy everything to standard error too
 * @param logDir           {@code --log-dir}: directory of klog-named files ({@link KlogFileNames}) when no
 *                         {@code --log-file}
 * @param logFile          {@code --log-file}
 * @param logFileMaxSizeMb {@code --log-file-max-size}: start a new file at this many megabytes; 0 disables
 *                         rotation. Default {@value #DEFAULT_MAX_SIZE_MB} (klog's 1800 per file is unbounded)
 * @param stderrThreshold  {@code --stderrthreshold}: with file logging, events at or above this level also go to
 *                         standard error ({@code INFO}, {@code WARN} or {@code ERROR})
 * @param splitStream      {@code --log-text-split-stream} / {@code --log-json-split-stream} for the chosen format
 *                         (or the file's {@code logging.options.<format>.splitStream}): when logging to the
 *                         console, info goes to standard output and errors to standard error
 * @param formatOptions    the file's {@code logging.options} block, kept for {@code --write-config-to}
 */
public record LoggingOptions(
        int verbosity,
        String vmodule,
        String format,
        Duration flushFrequency,
        boolean logToStderr,
        boolean alsoLogToStderr,
        Optional<Path> logDir,
        Optional<Path> logFile,
        long logFileMaxSizeMb,
        String stderrThreshold,
        boolean splitStream,
        Map<String, Object> formatOptions) {

    /** winproxy's default {@code --log-file-max-size}, in megabytes. */
    public static final long DEFAULT_MAX_SIZE_MB = 50;

    public LoggingOptions {
        formatOptions = Collections.unmodifiableMap(new LinkedHashMap<>(formatOptions));
    }

    /** klog's defaults (verbosity 0, text, stderr only), with {@value #DEFAULT_MAX_SIZE_MB} MB files. */
    public static LoggingOptions defaults() {
        return new LoggingOptions(0, "", "text", Duration.ofSeconds(5), true, false, Optional.empty(),
                Optional.empty(), DEFAULT_MAX_SIZE_MB, "ERROR", false, Map.of());
    }

    /** The same options with another verbosity. */
    public LoggingOptions withVerbosity(int level) {
        return new LoggingOptions(level, vmodule, format, flushFrequency, logToStderr, alsoLogToStderr, logDir,
                logFile, logFileMaxSizeMb, stderrThreshold, splitStream, formatOptions);
    }

    /** The one file logs go to: {@code --log-file}, unless {@code --logtostderr=true}. */
    public Optional<Path> effectiveLogFile() {
        return logToStderr ? Optional.empty() : logFile;
    }

    /**
     * The directory of klog-named per-severity files ({@link KlogFileNames}), as klog decides: none with
     * {@code --logtostderr=true} or a {@code --log-file}; else {@code --log-dir}, else the temporary directory.
     */
    public Optional<Path> klogDirectory() {
        if (logToStderr || logFile.isPresent()) {
            return Optional.empty();
        }
        return Optional.of(logDir.orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir"))));
    }
}
