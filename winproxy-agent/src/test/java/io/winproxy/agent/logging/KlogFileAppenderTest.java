package io.winproxy.agent.logging;

import static io.winproxy.agent.logging.LayoutEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

    private static Path winproxyFile(Path dir, String stamp, long pid) throws IOException {
        Path file = dir.resolve("kube-proxy.exe.node1.DOMAIN_user.log.INFO." + stamp + "." + pid);
        Files.writeString(file, "Log file created at: 2020/01/01 00:00:00\nRunning on machine: node1\n"
                + KlogFileAppender.BINARY_LINE + " 0.9 on Java 17\n");
        return file;
    }

    private static void rotateOnce(KlogFileAppender info) {
        for (int i = 0; i < 12; i++) {
            info.doAppend(event("io.winproxy.x", Level.INFO, "line " + i + " " + "x".repeat(60), null, Map.of()));
        }
    }

    @Test
    void aFileAnotherProcessHoldsTheLockOfIsKeptAndPrunedOnceThatProcessEnds() throws Exception {
        Path held = winproxyFile(dir, "20200101-000000", 1);
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(javaBin.toString(), "-cp", System.getProperty("java.class.path"),
                LockHolder.class.getName(), held.toString()).redirectErrorStream(true).start();
        try {
            String first = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8)).readLine();
            assertThat(first).isEqualTo("locked");
            assertThat(KlogFileAppender.inUse(held)).isTrue();
            KlogFileAppender info = appender("INFO", 600, 1);
            rotateOnce(info);
            assertThat(held).exists();
            child.getOutputStream().close();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(KlogFileAppender.inUse(held)).isFalse();
            rotateOnce(info);
            info.stop();
            assertThat(held).doesNotExist();
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void aProcessIdInTheNameDecidesNothing() throws IOException {
        // The parent process (the build's JVM or shell) is alive; its id in the name must not protect the file.
        long live = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(ProcessHandle.current().pid());
        Path named = winproxyFile(dir, "20200101-000000", live);
        KlogFileAppender info = appender("INFO", 600, 1);
        rotateOnce(info);
        info.stop();
        assertThat(named).doesNotExist();
    }

    @Test
    void theWritersOwnOpenFileIsInUseAndLockingItNeverBlocksReaders() throws IOException {
        KlogFileAppender info = appender("INFO", 0, 2);
        info.doAppend(event("io.winproxy.x", Level.INFO, "first", null, Map.of()));
        assertThat(KlogFileAppender.inUse(info.currentFile())).isTrue();
        assertThat(Files.readString(info.currentFile())).contains("\"first\"");
        Path file = info.currentFile();
        info.stop();
        assertThat(KlogFileAppender.inUse(file)).isFalse();
    }
}
