package io.winproxy.agent.config;

import io.winproxy.agent.logging.LogFileCheck;
import io.winproxy.agent.logging.LoggingOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns the logging settings (the file's {@code logging} block as resolved in the draft, plus klog's flag-only
 * options {@code --logtostderr}, {@code --log-file}, ...) into {@link LoggingOptions}, recording bad values on the
 * draft. Stateless.
 */
final class LoggingFlags {
    private LoggingFlags() {
    }

    static LoggingOptions loggingOptions(ProxyFlags flags, ConfigDraft draft) {
        LoggingOptions defaults = LoggingOptions.defaults();
        boolean toStderr = flags.isSet("--logtostderr") ? boolFlag(flags, "--logtostderr", draft)
                : defaults.logToStderr();
        boolean alsoToStderr = boolFlag(flags, "--alsologtostderr", draft);
        long maxSize = defaults.logFileMaxSizeMb();
        Optional<String> maxText = flags.get("--log-file-max-size");
        if (maxText.isPresent()) {
            try {
                maxSize = Long.parseLong(maxText.get().trim());
                if (maxSize < 0) {
                    draft.invalidFlag("--log-file-max-size", maxText.get(), "must be greater than or equal to 0");
                }
            } catch (NumberFormatException e) {
                draft.invalidFlag("--log-file-max-size", maxText.get(),
                        "strconv.ParseUint: parsing \"" + maxText.get() + "\": invalid syntax");
            }
        }
        String threshold = defaults.stderrThreshold();
        Optional<String> thresholdText = flags.get("--stderrthreshold");
        if (thresholdText.isPresent()) {
            threshold = severity(thresholdText.get());
            if (threshold == null) {
                draft.invalidFlag("--stderrthreshold", thresholdText.get(),
                        "must be one of INFO, WARNING, ERROR, FATAL or 0-3");
                threshold = defaults.stderrThreshold();
            }
        }
        Object options = draft.get("logging.options");
        @SuppressWarnings("unchecked")
        Map<String, Object> formatOptions = options instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        boolean jsonSplit = splitStream(flags, "--log-json-split-stream", formatOptions, "json", draft);
        boolean textSplit = splitStream(flags, "--log-text-split-stream", formatOptions, "text", draft);
        for (String flag : BUFFER_SIZE_FLAGS) {
            flags.get(flag).filter(v -> !QUANTITY.matcher(v.trim()).matches()).ifPresent(v -> draft.invalidFlag(
                    flag, v, "quantities must match the regular expression '" + QUANTITY.pattern() + "'"));
        }
        if (!toStderr) {
            flags.get("--log-file").filter(s -> !s.isEmpty()).ifPresent(file -> LogFileCheck.problem(Path.of(file))
                    .ifPresent(problem -> draft.invalidFlag("--log-file", file, problem)));
        }
        return new LoggingOptions(
                draft.integer("logging.verbosity"),
                draft.string("logging.vmodule"),
                draft.string("logging.format"),
                draft.duration("logging.flushFrequency"),
                toStderr,
                alsoToStderr,
                flags.get("--log-dir").filter(s -> !s.isEmpty()).map(Path::of),
                flags.get("--log-file").filter(s -> !s.isEmpty()).map(Path::of),
                Math.max(0, maxSize),
                threshold,
                draft.string("logging.format").equals("json") ? jsonSplit : textSplit,
                formatOptions);
    }

    /** The flags of component-base's alpha logging options (kube-proxy wants gate LoggingAlphaOptions for them). */
    static final List<String> ALPHA_OPTION_FLAGS = List.of("--log-json-split-stream", "--log-json-info-buffer-size",
            "--log-text-split-stream", "--log-text-info-buffer-size");

    private static final List<String> BUFFER_SIZE_FLAGS = List.of("--log-json-info-buffer-size",
            "--log-text-info-buffer-size");

    /** A Kubernetes resource quantity such as {@code 0}, {@code 64Ki} or {@code 1M}. */
    private static final Pattern QUANTITY = Pattern.compile(
            "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");

    /** {@code --log-FORMAT-split-stream}, else the file's {@code logging.options.FORMAT.splitStream}. */
    private static boolean splitStream(ProxyFlags flags, String flag, Map<String, Object> formatOptions,
                                       String format, ConfigDraft draft) {
        if (flags.isSet(flag)) {
            return boolFlag(flags, flag, draft);
        }
        return formatOptions.get(format) instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("splitStream"));
    }

    /** klog severities by name or number, mapped onto logback level names. */
    private static String severity(String text) {
        switch (text.trim().toUpperCase(Locale.ROOT)) {
            case "0", "INFO":
                return "INFO";
            case "1", "WARNING":
                return "WARN";
            case "2", "ERROR", "3", "FATAL":
                return "ERROR";
            default:
                return null;
        }
    }

    /** A Go-style boolean flag; false when not given; a bad value is recorded on the draft. */
    static boolean boolFlag(ProxyFlags flags, String flag, ConfigDraft draft) {
        Optional<String> text = flags.get(flag);
        if (text.isEmpty()) {
            return false;
        }
        try {
            return FlagValues.parseBool(text.get());
        } catch (IllegalArgumentException e) {
            draft.invalidFlag(flag, text.get(), e.getMessage());
            return false;
        }
    }
}
