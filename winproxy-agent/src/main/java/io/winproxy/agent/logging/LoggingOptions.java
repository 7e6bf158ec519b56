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
 * @param logDir           {@code --log-dir}: directory of {@code kube-proxy.log} when no {@code --log-file}
 * @param logFile          {@code --log-file}
 * @param logFileMaxSizeMb {@code --log-file-max-size}: rotate at this many megabytes; 0 disables rotation
 * @param stderrThreshold  {@code --stderrthreshold}: with file logging, events at or above this level also go to
 *                         standard error ({@code INFO}, {@code WARN} or {@code ERROR})
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
        Map<String, Object> formatOptions) {

    /** The name of the log file in {@code --log-dir}, chosen so that collectors globbing kube-proxy*.log find it. */
    public static final String LOG_DIR_FILE_NAME = "kube-proxy.log";

    public LoggingOptions {
        formatOptions = Collections.unmodifiableMap(new LinkedHashMap<>(formatOptions));
    }

    /** klog's defaults: verbosity 0, text, stderr only, 1800 MB files. */
    public static LoggingOptions defaults() {
        return new LoggingOptions(0, "", "text", Duration.ofSeconds(5), true, false, Optional.empty(),
                Optional.empty(), 1800, "ERROR", Map.of());
    }

    /** The same options with another verbosity. */
    public LoggingOptions withVerbosity(int level) {
        return new LoggingOptions(level, vmodule, format, flushFrequency, logToStderr, alsoLogToStderr, logDir,
                logFile, logFileMaxSizeMb, stderrThreshold, formatOptions);
    }

    /**
     * The file logs go to, as klog decides: none with {@code --logtostderr=true}; else {@code --log-file}; else
     * {@code <--log-dir>/kube-proxy.log}; else {@code kube-proxy.log} in the temporary directory.
     */
    public Optional<Path> effectiveLogFile() {
        if (logToStderr) {
            return Optional.empty();
        }
        if (logFile.isPresent()) {
            return logFile;
        }
        Path dir = logDir.orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir")));
        return Optional.of(dir.resolve(LOG_DIR_FILE_NAME));
    }
}
