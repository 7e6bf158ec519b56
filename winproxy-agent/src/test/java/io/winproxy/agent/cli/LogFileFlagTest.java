package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A {@code --log-file} logging cannot write is refused before anything runs, in one line naming the flag. */
class LogFileFlagTest {
    @TempDir
    Path dir;

    /** A run that got through configures logging into the temporary directory: restore the bundled setup. */
    @AfterEach
    void restoreTheBundledLoggingConfiguration() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    private static CliRunner.Result run(Path logFile) {
        return CliRunner.run("--hostname-override=a", "--network-name=n", "--hns=emulated", "--logtostderr=false",
                "--log-file=" + logFile, "--write-config-to=" + logFile.resolveSibling("unused.yaml"));
    }

    @Test
    void aDirectoryIsRefusedWithExit2InOneLine() {
        CliRunner.Result r = run(dir);
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--log-file").contains(dir.toString()).contains("is a directory");
    }

    @Test
    void aFileUnderARegularFileCannotBeCreatedAndIsRefused() throws IOException {
        Path notADirectory = Files.writeString(dir.resolve("plain"), "x");
        CliRunner.Result r = run(notADirectory.resolve("sub").resolve("kube-proxy.log"));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--log-file").contains("cannot be created").contains("is not a directory");
    }

    @Test
    void aFileInADirectoryStillToBeCreatedIsAccepted() {
        Path file = dir.resolve("logs").resolve("kube-proxy.log");
        CliRunner.Result r = run(file);
        assertThat(r.exitCode()).as(r.err()).isZero();
    }

    @Test
    void withLogsOnStderrTheFlagIsIgnoredAsKlogIgnoresIt() {
        CliRunner.Result r = CliRunner.run("--hostname-override=a", "--network-name=n", "--hns=emulated",
                "--log-file=" + dir, "--write-config-to=" + dir.resolve("unused.yaml"));
        assertThat(r.exitCode()).as(r.err()).isZero();
    }
}
