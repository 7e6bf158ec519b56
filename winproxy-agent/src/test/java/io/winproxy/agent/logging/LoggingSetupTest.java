package io.winproxy.agent.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.FileAppender;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.List;
import java.time.ZoneId;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoggingSetupTest {

    private final LoggerContext context = new LoggerContext();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        context.stop();
    }

    private static LoggingOptions options(int v, boolean toStderr, boolean also, Path file, long maxMb,
                                          String format) {
        return new LoggingOptions(v, "", format, Duration.ofSeconds(5), toStderr, also, Optional.empty(),
                Optional.ofNullable(file), maxMb, "ERROR", false, Map.of());
    }

    private static LoggingOptions logDir(Path dir, long maxMb) {
        return new LoggingOptions(0, "", "text", Duration.ofSeconds(5), false, false, Optional.of(dir),
                Optional.empty(), maxMb, "ERROR", false, Map.of());
    }

    private static final KlogFileNames NAMES = new KlogFileNames("kube-proxy.exe", "node1", "WORKGROUP_NODE1$",
            4242, "1.0");

    private String stderrText() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    @Test
    void byDefaultInfoGoesToStderrWithKlogsHeaderNamingTheCallingFileAndLine() {
        LoggingSetup.configure(context, LoggingOptions.defaults(), stderr);
        Logger logger = context.getLogger("io.winproxy.agent.sync.SyncRunner");
        logger.info("synced {} services", 3);
        logger.debug("not shown at --v=0");
        long pid = ProcessHandle.current().pid();
        assertThat(stderrText()).matches("I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +" + pid
                + " LoggingSetupTest\\.java:\\d+\\] \"synced 3 services\"\\R");
        assertThat(stderrText().substring(22, 30)).isEqualTo(String.format("%7d ", pid).substring(0, 8));
    }

    @Test
    void withSplitStreamInfoGoesToStdoutAndErrorsToStderr() {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        LoggingOptions split = new LoggingOptions(0, "", "text", Duration.ofSeconds(5), true, false,
                Optional.empty(), Optional.empty(), 50, "ERROR", true, Map.of());
        LoggingSetup.configure(context, split, stdout, stderr);
        context.getLogger("io.winproxy.a").info("an info");
        context.getLogger("io.winproxy.a").warn("a warning");
        context.getLogger("io.winproxy.a").error("an error");
        assertThat(stdout.toString(StandardCharsets.UTF_8)).contains("an info", "a warning").doesNotContain("an error");
        assertThat(stderrText()).contains("an error").doesNotContain("an info");
    }

    @Test
    void logDirWritesKlogNamedFilesPerSeverityAndLinksToTheNewest() throws IOException {
        LoggingSetup.configure(context, logDir(dir, 50), stderr, stderr, NAMES, ZoneId.of("UTC"));
        Logger logger = context.getLogger("io.winproxy.a");
        logger.info("an info");
        logger.warn("a warning");
        context.stop();
        List<String> names;
        try (Stream<Path> files = Files.list(dir)) {
            names = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(names).filteredOn(n -> !n.equals("kube-proxy.exe.INFO") && !n.equals("kube-proxy.exe.WARNING"))
                .hasSize(2)
                .allMatch(n -> n.matches("kube-proxy\\.exe\\.node1\\.WORKGROUP_NODE1\\$\\.log\\.(INFO|WARNING)"
                        + "\\.\\d{8}-\\d{6}\\.4242"));
        Path info = dir.resolve(names.stream().filter(n -> n.contains(".log.INFO.")).findFirst().orElseThrow());
        Path warning = dir.resolve(names.stream().filter(n -> n.contains(".log.WARNING.")).findFirst().orElseThrow());
        assertThat(Files.readString(info)).startsWith("Log file created at: ").contains("Binary: winproxy 1.0")
                .contains("an info").contains("a warning");
        assertThat(Files.readString(warning)).contains("a warning").doesNotContain("an info");
        assertThat(names).doesNotContain("kube-proxy.exe.node1.WORKGROUP_NODE1$.log.ERROR");
        if (Files.isSymbolicLink(dir.resolve("kube-proxy.exe.INFO"))) {
            assertThat(Files.readSymbolicLink(dir.resolve("kube-proxy.exe.INFO"))).isEqualTo(info.getFileName());
        }
        assertThat(stderrText()).isEmpty();
    }

    @Test
    void verbosityTwoShowsDebugOfWinproxyButNotOfOtherLibraries() {
        LoggingSetup.configure(context, LoggingOptions.defaults().withVerbosity(2), stderr);
        context.getLogger("io.winproxy.hns.Emulator").debug("winproxy debug");
        context.getLogger("io.winproxy.hns.Emulator").trace("winproxy trace");
        context.getLogger("io.fabric8.kubernetes.client.Informer").debug("client debug");
        context.getLogger("org.other").debug("other debug");
        assertThat(stderrText()).contains("winproxy debug").doesNotContain("winproxy trace")
                .doesNotContain("client debug").doesNotContain("other debug");
    }

    @Test
    void verbositySixShowsKubernetesClientDebug() {
        LoggingSetup.configure(context, LoggingOptions.defaults().withVerbosity(6), stderr);
        context.getLogger("io.fabric8.kubernetes.client.Informer").debug("client debug");
        context.getLogger("io.winproxy.x").trace("winproxy trace");
        assertThat(stderrText()).contains("client debug").contains("winproxy trace");
    }

    @Test
    void credentialsInMessagesArgumentsAndStackTracesAreRedacted() {
        LoggingSetup.configure(context, LoggingOptions.defaults(), stderr);
        Logger logger = context.getLogger("io.winproxy.agent.kube.Client");
        logger.info("request headers: Authorization: Bearer {}", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.sig");
        logger.error("connect failed", new IllegalStateException("bad URL https://u:hunter2@api/?token=abc"));
        String out = stderrText();
        assertThat(out).doesNotContain("eyJhbGci").doesNotContain("hunter2").doesNotContain("token=abc")
                .contains("Authorization: Bearer <redacted>")
                .contains("java.lang.IllegalStateException: bad URL https://u:<redacted>@api/?token=<redacted>");
    }

    @Test
    void withLogtostderrFalseLogsGoToTheFileAndOnlyErrorsToStderr() throws IOException {
        Path file = dir.resolve("logs/kube-proxy.log");
        LoggingSetup.configure(context, options(0, false, false, file, 1800, "text"), stderr);
        Logger logger = context.getLogger("io.winproxy.a");
        logger.info("to the file");
        logger.error("to both");
        context.stop();
        assertThat(Files.readString(file)).contains("to the file").contains("to both");
        assertThat(stderrText()).contains("to both").doesNotContain("to the file");
    }

    @Test
    void alsologtostderrCopiesEverythingToStderr() throws IOException {
        Path file = dir.resolve("kube-proxy.log");
        LoggingSetup.configure(context, options(0, false, true, file, 0, "text"), stderr);
        context.getLogger("io.winproxy.a").info("everywhere");
        context.stop();
        assertThat(Files.readString(file)).contains("everywhere");
        assertThat(stderrText()).contains("everywhere");
    }

    @Test
    void logDirWithoutLogFileMeansKlogFilesInThatDirectory() {
        assertThat(logDir(dir, 10).effectiveLogFile()).isEmpty();
        assertThat(logDir(dir, 10).klogDirectory()).contains(dir);
        assertThat(options(0, false, false, dir.resolve("k.log"), 10, "text").klogDirectory()).isEmpty();
        assertThat(LoggingOptions.defaults().klogDirectory()).isEmpty();
    }

    @Test
    void theDefaultMaximumSizeBoundsDiskUse() {
        assertThat(LoggingOptions.defaults().logFileMaxSizeMb() * (LoggingSetup.ROTATED_FILES + 1)).isEqualTo(300);
    }

    @Test
    void aMaximumSizeConfiguresRotationIntoFiveNumberedFiles() {
        Path file = dir.resolve("kube-proxy.log");
        LoggingSetup.configure(context, options(0, false, false, file, 10, "text"), stderr);
        Appender<ILoggingEvent> appender = context.getLogger("ROOT").getAppender("file");
        assertThat(appender).isInstanceOf(RollingFileAppender.class);
        RollingFileAppender<ILoggingEvent> rolling = (RollingFileAppender<ILoggingEvent>) appender;
        FixedWindowRollingPolicy policy = (FixedWindowRollingPolicy) rolling.getRollingPolicy();
        assertThat(policy.getFileNamePattern()).isEqualTo(file.toAbsolutePath() + ".%i");
        assertThat(policy.getMinIndex()).isEqualTo(1);
        assertThat(policy.getMaxIndex()).isEqualTo(5);
        SizeBasedTriggeringPolicy<ILoggingEvent> trigger =
                (SizeBasedTriggeringPolicy<ILoggingEvent>) rolling.getTriggeringPolicy();
        assertThat(trigger.getMaxFileSize().getSize()).isEqualTo(10L * 1024 * 1024);
    }

    @Test
    void sizeZeroMeansOneFileWithoutRotation() {
        LoggingSetup.configure(context, options(0, false, false, dir.resolve("k.log"), 0, "text"), stderr);
        Appender<ILoggingEvent> appender = context.getLogger("ROOT").getAppender("file");
        assertThat(appender).isExactlyInstanceOf(FileAppender.class);
    }

    @Test
    void theFileRollsOverOnceItExceedsTheMaximumSize() throws Exception {
        Path file = dir.resolve("kube-proxy.log");
        LoggingSetup.configure(context, options(0, false, false, file, 1, "text"), stderr);
        Logger logger = context.getLogger("io.winproxy.a");
        String line = "x".repeat(1000);
        for (int i = 0; i < 1200; i++) {
            logger.info(line);
        }
        Thread.sleep(600);
        logger.info("after the roll");
        context.stop();
        assertThat(dir.resolve("kube-proxy.log.1")).exists();
        assertThat(Files.size(dir.resolve("kube-proxy.log.1"))).isGreaterThan(1024L * 1024);
        assertThat(Files.readString(file)).contains("after the roll");
    }

    @Test
    void jsonFormatWritesOneRedactedObjectPerLine() {
        LoggingSetup.configure(context, options(0, true, false, null, 0, "json"), stderr);
        context.getLogger("io.winproxy.a").warn("password=hunter2 \"quoted\"");
        assertThat(stderrText()).matches("\\{\"ts\":\\d{13}(\\.\\d+)?,"
                + "\"caller\":\"logging/LoggingSetupTest\\.java:\\d+\",\"msg\":\"password=<redacted> \\\\\"quoted\\\\\"\","
                + "\"v\":0}\\R");
    }

    @Test
    void structuredKeyValuesAreRedactedToo() {
        LoggingSetup.configure(context, LoggingOptions.defaults(), stderr);
        context.getLogger("io.winproxy.a").atInfo().addKeyValue("token", "s3cr3t").log("connecting");
        assertThat(stderrText()).contains("\"connecting\" token=").doesNotContain("s3cr3t");
    }

    @Test
    void theBundledLogbackXmlLoadsWithoutErrorsAndRedacts() {
        LoggerContext global = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        assertThat(global.getStatusManager().getCopyOfStatusList())
                .noneMatch(status -> status.getLevel() >= ch.qos.logback.core.status.Status.WARN);
        Appender<ILoggingEvent> appender = global.getLogger("ROOT").getAppender("stderr");
        assertThat(appender).isNotNull();
        assertThat(appender.isStarted()).isTrue();
        ch.qos.logback.core.encoder.LayoutWrappingEncoder<ILoggingEvent> encoder =
                (ch.qos.logback.core.encoder.LayoutWrappingEncoder<ILoggingEvent>)
                        ((ch.qos.logback.core.OutputStreamAppender<ILoggingEvent>) appender).getEncoder();
        assertThat(encoder.getLayout()).isInstanceOf(RedactingLayout.class);
    }

    @Test
    void reconfiguringReplacesThePreviousSetup() {
        LoggingSetup.configure(context, LoggingOptions.defaults().withVerbosity(4), stderr);
        LoggingSetup.configure(context, LoggingOptions.defaults(), stderr);
        context.getLogger("io.winproxy.a").debug("hidden");
        context.getLogger("io.winproxy.a").info("once");
        assertThat(stderrText()).doesNotContain("hidden");
        assertThat(stderrText().split("once", -1)).hasSize(2);
    }
}
