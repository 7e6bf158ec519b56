package io.winproxy.agent.demo;

import java.nio.file.Path;

/**
 * Something wrong (or ignored) in a manifest file.
 *
 * @param line    1-based line, 0 when unknown
 * @param fatal   true when the file could not be used (its objects are all left out); false for a warning such as
 *                an ignored kind
 */
public record ManifestProblem(Path file, int line, String message, boolean fatal) {

    /** One line: "FILE:LINE: message" (line omitted when unknown). */
    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + ": " + message;
    }
}
