package io.winproxy.agent.logging;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether {@code --log-file} names a file logging can write, checked before logging starts: otherwise logback
 * would report the failure only in its status list and every line would be lost without a word. Stateless.
 */
public final class LogFileCheck {
    private LogFileCheck() {
    }

    /**
     * Why {@code file} cannot be a log file, or empty when it can: it is a directory; it exists and is not
     * writable; or the nearest existing ancestor (logging creates missing parent directories) is not a directory
     * or not writable.
     */
    public static Optional<String> problem(Path file) {
        Path absolute = file.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return Optional.of("is a directory, not a file");
        }
        if (Files.exists(absolute)) {
            return Files.isWritable(absolute) ? Optional.empty() : Optional.of("the file is not writable");
        }
        Path ancestor = absolute.getParent();
        while (ancestor != null && !Files.exists(ancestor)) {
            ancestor = ancestor.getParent();
        }
        if (ancestor == null) {
            return Optional.of("cannot be created: no parent directory exists");
        }
        if (!Files.isDirectory(ancestor)) {
            return Optional.of("cannot be created: " + ancestor + " is not a directory");
        }
        if (!Files.isWritable(ancestor)) {
            return Optional.of("cannot be created: directory " + ancestor + " is not writable");
        }
        return Optional.empty();
    }
}
