package io.winproxy.agent.check;

import io.winproxy.agent.state.SecureFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The latest report in the state directory, {@value #FILE_NAME} ({@link CheckOutput}'s JSON), written by the agent at
 * start-up and by {@code winproxy check}; the diagnostics bundle collects it. Replaced atomically, readable by its
 * owner only.
 */
public final class CheckReportFile {
    public static final String FILE_NAME = "check.json";

    private CheckReportFile() {
    }

    /** Replaces {@code stateDir/check.json}; the directory must exist. */
    public static Path write(Path stateDir, CheckReport report, Instant at) throws IOException {
        Path file = stateDir.resolve(FILE_NAME);
        Path tmp = stateDir.resolve(FILE_NAME + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            Files.createFile(tmp);
            SecureFiles.restrictToOwner(tmp);
            Files.writeString(tmp, CheckOutput.jsonText(report, at) + "\n", StandardCharsets.UTF_8);
            SecureFiles.replace(tmp, file);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return file;
    }
}
