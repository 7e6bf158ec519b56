package io.winproxy.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Winsvc;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The agent as a real Windows service, stopped while it is still starting: its API server is unreachable, so the
 * first sync never completes and the service stays {@code START_PENDING}. It must accept the stop there and end
 * {@code STOPPED} with exit code 0 (no recovery action), instead of the SCM refusing the control with
 * {@code ERROR_SERVICE_CANNOT_ACCEPT_CTRL}. Needs an elevated process and the packaged agent
 * ({@code winproxy-agent/target/winproxy-agent.jar}).
 */
@EnabledOnOs(OS.WINDOWS)
class ServiceStopWhileStartingWindowsIT {
    private static final String NAME = "winproxy-stop-it";

    @Test
    void aStopWhileTheServiceIsStartPendingStopsItCleanly() throws Exception {
        Path root = Path.of(System.getProperty("winproxy.root", "..")).toAbsolutePath().normalize();
        Path jar = root.resolve("winproxy-agent/target/winproxy-agent.jar");
        assumeTrue(Files.isRegularFile(jar), "the agent is not packaged: " + jar);
        JnaServiceConfigApi api = new JnaServiceConfigApi();
        try {
            api.close(api.openManager());
        } catch (RegistrationException e) {
            assumeTrue(e.win32Error() != RegistrationException.ACCESS_DENIED, "needs an elevated process");
            throw e;
        }
        Path work = Files.createDirectories(root.resolve("installer/target/" + NAME));
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(java, "-Xrs", "-jar", jar.toString(), "--windows-service",
                "--kubeconfig=" + unreachableKubeconfig(work), "--hostname-override=" + NAME,
                "--network-name=" + NAME, "--hns=emulated", "--state-dir=" + work.resolve("state"),
                "--healthz-bind-address=", "--metrics-bind-address=", "--logtostderr=false",
                "--log-file=" + work.resolve("agent.log")));
        ServiceRegistrar registrar = new ServiceRegistrar(api);
        registrar.install(new ServiceDefinition(NAME, "winproxy stop IT", "throw-away service of an IT",
                CommandLine.join(command), StartType.MANUAL, List.of(), RecoveryActions.DEFAULTS), true);
        Winsvc.SC_HANDLE manager = Advapi32.INSTANCE.OpenSCManager(null, null, Winsvc.SC_MANAGER_ALL_ACCESS);
        Winsvc.SC_HANDLE service = Advapi32.INSTANCE.OpenService(manager, NAME, Winsvc.SERVICE_ALL_ACCESS);
        try {
            assertThat(Advapi32.INSTANCE.StartService(service, 0, null)).isTrue();
            // The SCM reports START_PENDING with no controls until the agent's own first report, which accepts STOP.
            Winsvc.SERVICE_STATUS_PROCESS starting = await(service, s -> (s.dwControlsAccepted
                    & Winsvc.SERVICE_ACCEPT_STOP) != 0 || s.dwCurrentState != Winsvc.SERVICE_START_PENDING, 60);
            assertThat(starting.dwCurrentState).as("still starting: the API server is unreachable")
                    .isEqualTo(Winsvc.SERVICE_START_PENDING);

            assertThat(Advapi32.INSTANCE.ControlService(service, Winsvc.SERVICE_CONTROL_STOP,
                    new Winsvc.SERVICE_STATUS())).as("the SCM delivered the stop").isTrue();

            Winsvc.SERVICE_STATUS_PROCESS stopped = awaitState(service, Winsvc.SERVICE_STOPPED, 60);
            assertThat(stopped.dwWin32ExitCode).as("a requested stop is no failure").isZero();
        } finally {
            Advapi32.INSTANCE.ControlService(service, Winsvc.SERVICE_CONTROL_STOP, new Winsvc.SERVICE_STATUS());
            awaitStateQuietly(service);
            Advapi32.INSTANCE.CloseServiceHandle(service);
            Advapi32.INSTANCE.CloseServiceHandle(manager);
            registrar.uninstall(NAME);
        }
    }

    /** A kubeconfig whose API server refuses connections, so that the informers never complete a list. */
    private static Path unreachableKubeconfig(Path dir) throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: nowhere
                  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
                users:
                - name: nobody
                  user: {}
                contexts:
                - name: nowhere
                  context: {cluster: nowhere, user: nobody}
                current-context: nowhere
                """);
    }

    private static Winsvc.SERVICE_STATUS_PROCESS awaitState(Winsvc.SC_HANDLE service, int state, int seconds)
            throws InterruptedException {
        return await(service, s -> s.dwCurrentState == state, seconds);
    }

    private static Winsvc.SERVICE_STATUS_PROCESS await(Winsvc.SC_HANDLE service,
            Predicate<Winsvc.SERVICE_STATUS_PROCESS> reached, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        Winsvc.SERVICE_STATUS_PROCESS status = query(service);
        while (!reached.test(status)) {
            assertThat(System.nanoTime()).as("not reached; last state " + status.dwCurrentState)
                    .isLessThan(deadline);
            Thread.sleep(100);
            status = query(service);
        }
        return status;
    }

    private static void awaitStateQuietly(Winsvc.SC_HANDLE service) {
        try {
            awaitState(service, Winsvc.SERVICE_STOPPED, 60);
        } catch (AssertionError | InterruptedException e) {
            // Cleanup only; the test's own assertion reports the problem.
        }
    }

    private static Winsvc.SERVICE_STATUS_PROCESS query(Winsvc.SC_HANDLE service) {
        Winsvc.SERVICE_STATUS_PROCESS status = new Winsvc.SERVICE_STATUS_PROCESS();
        IntByReference needed = new IntByReference();
        assertThat(Advapi32.INSTANCE.QueryServiceStatusEx(service, Winsvc.SC_STATUS_TYPE.SC_STATUS_PROCESS_INFO,
                status, status.size(), needed)).isTrue();
        return status;
    }
}
