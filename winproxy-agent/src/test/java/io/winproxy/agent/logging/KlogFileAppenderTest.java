package io.winproxy.agent.logging;

import static io.winproxy.agent.logging.LayoutEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KlogFileAppenderTest {

    private static final KlogFileNames NAMES = new KlogFileNames("kube-proxy.exe", "node1", "DOMAIN_user", 77, "1.0");

    @TempDir
    Path dir;

    private KlogFileAppender appender(String severity, long maxBytes, int keep) {
        LoggerContext context = new LoggerContext();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        KlogTextLayout layout = new KlogTextLayout(ZoneId.of("UTC"), 77, new LibraryLoggers(0, Map.of()));
        layout.setContext(context);
        layout.start();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        KlogFileAppender appender = new KlogFileAppender(dir, NAMES, severity, maxBytes, keep, ZoneId.of("UTC"));
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }

    private List<String> files(String severity) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).filter(n -> n.contains(".log." + severity + "."))
                    .sorted().toList();
        }
    }

    @Test
    void aFileIsNamedAsKlogNamesItAndCreatedOnlyWithItsFirstEvent() throws IOException {
        KlogFileAppender errors = appender("ERROR", 0, 6);
        errors.doAppend(event("io.winproxy.x", Level.WARN, "only a warning", null, Map.of()));
        assertThat(files("ERROR")).isEmpty();
        errors.doAppend(event("io.winproxy.x", Level.ERROR, "an error", null, Map.of()));
        errors.stop();
        assertThat(files("ERROR")).containsExactly("kube-proxy.exe.node1.DOMAIN_user.log.ERROR.20241123-085030.77");
    }

    @Test
    void rotationKeepsABoundedNumberOfWinproxysFilesAndNeverDeletesOthers() throws IOException {
        Path foreign = dir.resolve("kube-proxy.exe.node1.DOMAIN_user.log.INFO.20200101-000000.5");
        Files.writeString(foreign, "Log file created at: 2020/01/01 00:00:00\nBinary: Built with gc go1.22\n");
        KlogFileAppender info = appender("INFO", 600, 3);
        for (int i = 0; i < 40; i++) {
            info.doAppend(event("io.winproxy.x", Level.INFO, "line " + i + " " + "x".repeat(60), null, Map.of()));
        }
        info.stop();
        List<String> names = files("INFO");
        assertThat(names).contains(foreign.getFileName().toString());
        assertThat(names).hasSize(3 + 1);
        for (String name : names) {
            assertThat(Files.size(dir.resolve(name))).isLessThanOrEqualTo(600);
        }
        assertThat(Files.readString(info.currentFile())).contains("line 39");
    }

    @Test
    void aFileOfAnotherRunningProcessIsNeverPruned() {
        // The parent process (the build's JVM or shell) is alive while this test runs.
        long live = ProcessHandle.current().parent().map(ProcessHandle::pid).orElseThrow();
        assertThat(KlogFileAppender.ofAnotherLiveProcess(java.nio.file.Path.of(
                "kube-proxy.h.u.log.INFO.20261123-080000." + live))).isTrue();
        assertThat(KlogFileAppender.ofAnotherLiveProcess(java.nio.file.Path.of(
                "kube-proxy.h.u.log.INFO.20261123-080000." + ProcessHandle.current().pid()))).isFalse();
        assertThat(KlogFileAppender.ofAnotherLiveProcess(java.nio.file.Path.of(
                "kube-proxy.h.u.log.INFO.20261123-080000.999999999"))).isFalse();
    }
}
