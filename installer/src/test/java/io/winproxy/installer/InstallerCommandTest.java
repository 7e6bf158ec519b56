package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class InstallerCommandTest {
    private final ServiceRegistrar registrar = mock(ServiceRegistrar.class);
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final InstallerCommand command = new InstallerCommand(() -> registrar,
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

    @Test
    void installPassesTheDefinitionWithTheDocumentedDefaults() {
        int code = command.run("install", "--name", "kube-proxy", "--", "C:\\Program Files\\Java\\bin\\java.exe",
                "-Xrs", "-jar", "C:\\k\\winproxy\\winproxy-agent.jar", "--windows-service");

        assertThat(code).isZero();
        ArgumentCaptor<ServiceDefinition> definition = ArgumentCaptor.forClass(ServiceDefinition.class);
        verify(registrar).install(definition.capture(), eq(false));
        ServiceDefinition d = definition.getValue();
        assertThat(d.name()).isEqualTo("kube-proxy");
        assertThat(d.commandLine()).isEqualTo("\"C:\\Program Files\\Java\\bin\\java.exe\" -Xrs -jar "
                + "C:\\k\\winproxy\\winproxy-agent.jar --windows-service");
        assertThat(d.startType()).isEqualTo(StartType.AUTOMATIC);
        assertThat(d.dependencies()).containsExactly("hns");
        assertThat(d.recovery()).isEqualTo(RecoveryActions.DEFAULTS);
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("registered service kube-proxy");
    }

    @Test
    void aServiceCommandLineWithoutALogFileOrDirectoryIsRegisteredWithAWarningThatItLogsNowhere() {
        assertThat(command.run("install", "--name", "kube-proxy", "--", "java.exe", "-jar", "winproxy-agent.jar",
                "--windows-service")).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo(LogDestination.WARNING);

        for (String logFlag : List.of("--log-file=C:\\k\\kube-proxy.log", "--log-dir=C:\\k\\logs")) {
            err.reset();
            assertThat(command.run("install", "--name", "kube-proxy", "--", "java.exe", "-jar",
                    "winproxy-agent.jar", "--windows-service", "--logtostderr=false", logFlag)).isZero();
            assertThat(err.toString(StandardCharsets.UTF_8)).as(logFlag).isEmpty();
        }
    }

    @Test
    void startTypeDelayedFromTheCommandLineSetsTheDelayedAutoStartFlagOnTheCreatedService() {
        ServiceConfigApi api = mock(ServiceConfigApi.class);
        ServiceConfigApi.Handle manager = new ServiceConfigApi.Handle() { };
        ServiceConfigApi.Handle created = new ServiceConfigApi.Handle() { };
        when(api.openManager()).thenReturn(manager);
        when(api.openService(manager, "kube-proxy")).thenReturn(Optional.empty());
        when(api.createService(eq(manager), eq("kube-proxy"), any(), anyInt(), any(), anyList())).thenReturn(created);
        InstallerCommand real = new InstallerCommand(() -> new ServiceRegistrar(api),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        int code = real.run("install", "--name", "kube-proxy", "--start-type", "delayed", "--", "java.exe", "-jar",
                "winproxy-agent.jar", "--windows-service");

        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        verify(api).createService(eq(manager), eq("kube-proxy"), any(), eq(2), any(), anyList());
        verify(api).setDelayedAutoStart(created, true);
    }

    @Test
    void installTakesTheAksSettings() {
        int code = command.run("install", "--name", "kubeproxy", "--start-type", "manual", "--depends-on",
                "kubelet, hns", "--restart-delays", "60,60,60", "--reset-period", "900", "--replace", "--",
                "java.exe", "-jar", "winproxy-agent.jar");

        assertThat(code).isZero();
        ArgumentCaptor<ServiceDefinition> definition = ArgumentCaptor.forClass(ServiceDefinition.class);
        verify(registrar).install(definition.capture(), eq(true));
        assertThat(definition.getValue().startType()).isEqualTo(StartType.MANUAL);
        assertThat(definition.getValue().dependencies()).containsExactly("kubelet", "hns");
        assertThat(definition.getValue().recovery().restartDelays()).containsExactly(Duration.ofSeconds(60),
                Duration.ofSeconds(60), Duration.ofSeconds(60));
    }

    @Test
    void usageErrorsAreOneLineAndExitTwo() {
        for (List<String> args : List.<List<String>>of(
                List.of(),
                List.of("frobnicate"),
                List.of("install", "--name", "kube-proxy"),
                List.of("install", "--", "java.exe"),
                List.of("install", "--name", "kube-proxy", "--start-type", "sometimes", "--", "java.exe"),
                List.of("install", "--name", "kube-proxy", "--restart-delays", "ten", "--", "java.exe"),
                List.of("install", "--name", "a/b", "--", "java.exe"),
                List.of("uninstall", "--replace", "--name", "x"))) {
            err.reset();
            assertThat(command.run(args.toArray(String[]::new))).as("%s", args).isEqualTo(2);
            String message = err.toString(StandardCharsets.UTF_8);
            assertThat(message).as("%s", args).startsWith("winproxy-installer: ");
            assertThat(message.strip()).as("%s", args).doesNotContain("\n");
        }
        verify(registrar, never()).install(any(), anyBoolean());
    }

    @Test
    void aWin32FailureExitsOneWithItsMessage() {
        doThrow(new RegistrationException("OpenSCManager(the service control manager) failed with Win32 error 5 "
                + "(run elevated, as Administrator)", 5)).when(registrar).install(any(), anyBoolean());

        assertThat(command.run("install", "--name", "kube-proxy", "--", "java.exe")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("run elevated");
    }

    @Test
    void withoutTheWindowsServiceApiTheCommandFailsWithOneLine() {
        InstallerCommand elsewhere = new InstallerCommand(() -> {
            throw new UnsatisfiedLinkError("Unable to load library 'Advapi32':\nlibAdvapi32.so: cannot open");
        }, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(elsewhere.run("uninstall", "--name", "kube-proxy")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8).strip())
                .isEqualTo("winproxy-installer: the Windows service API is not available here "
                        + "(Unable to load library 'Advapi32')");
    }

    @Test
    void uninstallSaysWhetherThereWasAService() {
        when(registrar.uninstall("kube-proxy")).thenReturn(true, false);

        assertThat(command.run("uninstall", "--name", "kube-proxy")).isZero();
        assertThat(command.run("uninstall", "--name", "kube-proxy")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("removed service kube-proxy")
                .contains("no service named kube-proxy is installed");
    }
}
