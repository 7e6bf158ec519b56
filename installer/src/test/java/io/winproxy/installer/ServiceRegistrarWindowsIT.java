package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Registers and removes a throw-away service through the real Win32 calls; needs an elevated process. */
@EnabledOnOs(OS.WINDOWS)
class ServiceRegistrarWindowsIT {
    private static final String NAME = "winproxy-registrar-it";

    @Test
    void aServiceIsRegisteredWithItsRecoveryActionsAndRemovedAgain() {
        JnaServiceConfigApi api = new JnaServiceConfigApi();
        ServiceConfigApi.Handle manager = openManagerOrSkip(api);
        api.close(manager);
        ServiceRegistrar registrar = new ServiceRegistrar(api);
        String command = CommandLine.join(List.of(System.getenv("ComSpec"), "/c", "exit", "0"));
        try {
            registrar.install(new ServiceDefinition(NAME, "winproxy IT", "throw-away service of an IT", command,
                    StartType.AUTOMATIC_DELAYED, List.of(), RecoveryActions.DEFAULTS), true);
            assertThat(readBack(api)).isEqualTo(new ServiceConfigApi.StoredSettings(
                    List.of(10_000, 30_000, 60_000), 900, true, true));

            // Re-registering deletes the old service and waits until the SCM has really removed it.
            registrar.install(new ServiceDefinition(NAME, "winproxy IT", "throw-away service of an IT", command,
                    StartType.MANUAL, List.of(), RecoveryActions.DEFAULTS), true);
            assertThat(readBack(api).delayedAutoStart()).isFalse();
            assertThat(registrar.uninstall(NAME)).isTrue();
            assertThat(registrar.uninstall(NAME)).isFalse();
        } finally {
            registrar.uninstall(NAME);
        }
    }

    @Test
    void replacingAServiceSomeoneStillHoldsOpenFailsWithTheMarkedForDeletionError() {
        JnaServiceConfigApi api = new JnaServiceConfigApi();
        ServiceConfigApi.Handle manager = openManagerOrSkip(api);
        ServiceRegistrar registrar = new ServiceRegistrar(api, Duration.ofSeconds(1), Duration.ofMillis(100),
                d -> Thread.sleep(d.toMillis()));
        String command = CommandLine.join(List.of(System.getenv("ComSpec"), "/c", "exit", "0"));
        ServiceDefinition definition = new ServiceDefinition(NAME, "winproxy IT", "throw-away service of an IT",
                command, StartType.MANUAL, List.of(), RecoveryActions.DEFAULTS);
        try {
            registrar.install(definition, true);
            ServiceConfigApi.Handle held = api.openService(manager, NAME).orElseThrow();
            try {
                assertThatThrownBy(() -> registrar.install(definition, true))
                        .isInstanceOfSatisfying(RegistrationException.class, e -> assertThat(e.win32Error())
                                .isEqualTo(RegistrationException.SERVICE_MARKED_FOR_DELETE));
            } finally {
                api.close(held);
            }
        } finally {
            api.close(manager);
            registrar.uninstall(NAME);
        }
    }

    @Test
    void aReplacementChangesOnlyTheProgramThroughTheRealCallsAndARollbackPutsItBack(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        JnaServiceConfigApi api = new JnaServiceConfigApi();
        api.close(openManagerOrSkip(api));
        ServiceRegistrar registrar = new ServiceRegistrar(api);
        // WMCO's shape: a log runner in front of kube-proxy.exe; the files need not exist to be registered.
        String wmco = "C:\\k\\kube-log-runner.exe -log-file=C:\\var\\log\\kube-proxy\\kube-proxy.log "
                + "C:\\k\\kube-proxy.exe --config C:\\k\\kube-proxy.conf --windows-service";
        java.nio.file.Path record = dir.resolve(NAME + ".properties");
        try {
            registrar.install(new ServiceDefinition(NAME, "winproxy IT", "throw-away service of an IT", wmco,
                    StartType.MANUAL, List.of("Tcpip"), RecoveryActions.DEFAULTS), true);

            registrar.replace(NAME, "C:\\k\\winproxy\\kube-proxy.exe", List.of(), record);

            ServiceConfigApi.ServiceConfig replaced = config(api);
            assertThat(CommandLine.split(replaced.binaryPath())).containsExactly("C:\\k\\kube-log-runner.exe",
                    "-log-file=C:\\var\\log\\kube-proxy\\kube-proxy.log", "C:\\k\\winproxy\\kube-proxy.exe",
                    "--config", "C:\\k\\kube-proxy.conf", "--windows-service");
            assertThat(replaced.dependencies()).containsExactly("Tcpip");
            assertThat(replaced.account()).isEqualTo("LocalSystem");
            assertThat(readBack(api).restartDelaysMillis()).containsExactly(10_000, 30_000, 60_000);

            assertThat(registrar.rollback(NAME, record)).isEqualTo(wmco);
            assertThat(config(api).binaryPath()).isEqualTo(wmco);
        } finally {
            registrar.uninstall(NAME);
        }
    }

    private static ServiceConfigApi.ServiceConfig config(JnaServiceConfigApi api) {
        return onService(api, api::queryConfig);
    }

    private static ServiceConfigApi.StoredSettings readBack(JnaServiceConfigApi api) {
        return onService(api, api::query);
    }

    /** Reads the test service with {@code read}, closing the handles afterwards. */
    private static <T> T onService(JnaServiceConfigApi api,
            java.util.function.Function<ServiceConfigApi.Handle, T> read) {
        ServiceConfigApi.Handle manager = api.openManager();
        try {
            ServiceConfigApi.Handle service = api.openService(manager, NAME).orElseThrow();
            try {
                return read.apply(service);
            } finally {
                api.close(service);
            }
        } finally {
            api.close(manager);
        }
    }

    /** Opens the service manager; skips the test (rather than failing it) when the process is not elevated. */
    private static ServiceConfigApi.Handle openManagerOrSkip(JnaServiceConfigApi api) {
        try {
            return api.openManager();
        } catch (RegistrationException e) {
            assumeTrue(e.win32Error() != RegistrationException.ACCESS_DENIED, "needs an elevated process");
            throw e;
        }
    }
}
