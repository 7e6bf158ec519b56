package io.winproxy.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.winproxy.agent.cli.CliContext;
import io.winproxy.agent.cli.ShutdownSignal;
import io.winproxy.agent.logging.KlogValues;
import io.winproxy.agent.winsvc.EventLogApi;
import io.winproxy.agent.winsvc.StartupFailureReporter;
import io.winproxy.agent.winsvc.WindowsServiceException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.ArgumentCaptor;
import org.mockito.InOrder;

/** {@link Main}'s edges: the JVM it refuses and where a start-up failure is reported, with the Event Log mocked. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final EventLogApi eventLog = mock(EventLogApi.class);
    private final Clock clock = Clock.fixed(Instant.parse("2026-11-23T08:50:30Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    private static Properties jvm(String os, String arch, String model) {
        Properties p = new Properties();
        p.setProperty("os.name", os);
        p.setProperty("os.arch", arch);
        p.setProperty("sun.arch.data.model", model);
        return p;
    }

    private int run(Properties system, boolean windows, String... args) {
        CliContext context = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), new ShutdownSignal(false));
        return new Main(context, system, new StartupFailureReporter(windows, () -> eventLog, clock)).run(args);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void a32BitJavaRuntimeOnWindowsIsRefusedWithOneLineAndExitCodeOne() {
        int code = run(jvm("Windows Server 2022", "x86", "32"), true, "--hostname-override=node1");

        assertThat(code).isEqualTo(Main.EXIT_FAILURE);
        assertThat(err().lines().toList()).singleElement().satisfies(line -> assertThat(line)
                .startsWith("winproxy: this is a 32-bit Java runtime (os.arch=x86)").contains("64-bit"));
        assertThat(out.size()).isZero();
    }

    @Test
    void a32BitRuntimeIsRecognisedByEitherProperty() {
        assertThat(Main.unsupportedRuntime(jvm("Windows 11", "x86", ""))).isPresent();
        assertThat(Main.unsupportedRuntime(jvm("Windows 11", "", "32"))).isPresent();
        assertThat(Main.unsupportedRuntime(jvm("Windows Server 2019", "amd64", "64"))).isEmpty();
        assertThat(Main.unsupportedRuntime(jvm("Windows 11", "aarch64", "64"))).isEmpty();
        assertThat(Main.unsupportedRuntime(jvm("Linux", "x86", "32"))).as("HNS is not used off Windows").isEmpty();
    }

    @Test
    void aFlagErrorOfAServiceReachesTheApplicationEventLog() {
        when(eventLog.hasConsole()).thenReturn(true);

        int code = run(jvm("Windows Server 2022", "amd64", "64"), true, "--windows-service", "--no-such-flag");

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        ArgumentCaptor<String> message = ArgumentCaptor.forClass(String.class);
        verify(eventLog).report(eq(StartupFailureReporter.EVENT_SOURCE), eq(EventLogApi.ERROR_TYPE),
                eq(StartupFailureReporter.EVENT_ID), message.capture());
        assertThat(message.getValue()).isEqualTo(err().strip()).contains("--no-such-flag");
        // The source is registered (when it may be) before the event is written, not only by install-service.ps1.
        InOrder order = inOrder(eventLog);
        order.verify(eventLog).registerSource(StartupFailureReporter.EVENT_SOURCE);
        order.verify(eventLog).report(anyString(), anyInt(), anyInt(), anyString());
    }

    @Test
    void anEventSourceThatCannotBeRegisteredStillGetsTheEvent() {
        when(eventLog.hasConsole()).thenReturn(false);
        doThrow(new IllegalStateException("access denied")).when(eventLog).registerSource(anyString());

        int code = run(jvm("Windows Server 2022", "amd64", "64"), true, "--windows-service", "--no-such-flag");

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        verify(eventLog).report(eq("winproxy"), eq(EventLogApi.ERROR_TYPE), eq(1000), eq(err().strip()));
    }

    @Test
    void aConfigurationErrorInAProcessWithoutAConsoleReachesTheEventLogEvenWithoutTheFlag() throws IOException {
        // install-service.ps1 runs the service with --config FILE whose windowsRunAsService is true: the flag is
        // not on the command line, and the file is what failed.
        Path config = Files.writeString(dir.resolve("kube-proxy-service.yaml"), "kind: NotAKubeProxyConfiguration\n");
        when(eventLog.hasConsole()).thenReturn(false);

        int code = run(jvm("Windows Server 2022", "amd64", "64"), true, "--config", config.toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        verify(eventLog).report(eq("winproxy"), eq(EventLogApi.ERROR_TYPE), eq(1000), eq(err().strip()));
    }

    @Test
    void aConsoleUserWithoutTheFlagIsNotReportedToTheEventLog() {
        when(eventLog.hasConsole()).thenReturn(true);

        assertThat(run(jvm("Windows 11", "amd64", "64"), true, "--no-such-flag")).isEqualTo(Main.EXIT_USAGE);

        verify(eventLog, never()).report(anyString(), anyInt(), anyInt(), anyString());
    }

    @Test
    void aFailingEventLogDoesNotChangeTheExitCodeOrTheLine() {
        doThrow(new WindowsServiceException("RegisterEventSource", 5, "access denied"))
                .when(eventLog).report(anyString(), anyInt(), anyInt(), anyString());

        int code = run(jvm("Windows Server 2022", "amd64", "64"), true, "--windows-service", "--no-such-flag");

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err().lines().toList()).singleElement().asString().contains("--no-such-flag");
    }

    @Test
    void aFlagErrorIsAppendedToTheLogFileTheCommandLineNames() throws IOException {
        Path log = dir.resolve("logs").resolve("winproxy.log");

        int code = run(jvm("Linux", "amd64", "64"), false, "--logtostderr=false", "--log-file", log.toString(),
                "--no-such-flag");

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(Files.readString(log)).isEqualTo(String.format("E1123 08:50:30.000000 %7d Main.java:0] ",
                ProcessHandle.current().pid()) + KlogValues.quote(err().strip()) + System.lineSeparator());
        verify(eventLog, never()).report(anyString(), anyInt(), anyInt(), anyString());
    }

    @Test
    void withOnlyALogDirTheLineGoesToKlogsErrorFileInIt() throws IOException {
        int code = run(jvm("Linux", "amd64", "64"), false, "--log-dir=" + dir, "--logtostderr=false",
                "--proxy-mode=iptables-nope");

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        Path errorFile;
        try (var files = Files.list(dir)) {
            errorFile = files.filter(f -> f.getFileName().toString().contains(".log.ERROR.20261123-085030."))
                    .findFirst().orElseThrow();
        }
        assertThat(Files.readString(errorFile)).contains(KlogValues.quote(err().strip()));
    }

    @Test
    void klogsDefaultOfLoggingToStderrOnlyWritesNoFile() {
        run(jvm("Linux", "amd64", "64"), false, "--log-file", dir.resolve("x.log").toString(), "--no-such-flag");

        assertThat(dir.resolve("x.log")).doesNotExist();
    }
}
