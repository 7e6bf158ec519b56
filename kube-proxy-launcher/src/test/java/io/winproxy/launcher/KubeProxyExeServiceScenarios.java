package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scenarios kube-proxy.exe must pass as a service's binary path, against a service manager the subclass drives:
 * {@link KubeProxyExeServiceWindowsIT} through Advapi32 (the real SCM), {@link KubeProxyExeServiceWineIT} through
 * {@code sc.exe} (Wine's service manager on Linux). The agent is a stand-in that records each step, one line each,
 * in {@link #record}. What one manager shows and the other cannot is checked in the hooks the subclass overrides.
 */
abstract class KubeProxyExeServiceScenarios {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** Service states (winsvc.h). */
    static final int STOPPED = 1;
    static final int START_PENDING = 2;
    static final int RUNNING = 4;
    /** The Win32 exit code of a service that ended with a code of its own (winerror.h). */
    static final int ERROR_SERVICE_SPECIFIC_ERROR = 1066;

    /** A service's state and exit codes, as the service manager reports them. */
    record Status(int state, int win32ExitCode, int serviceExitCode) {
    }

    /** The folder holding kube-proxy.exe and the stand-in agent; set before each test. */
    Path home;
    /** The file the stand-in agent records its steps in; set before each test. */
    Path record;

    /** Registers the service with kube-proxy.exe and {@code arguments} as its binary path. */
    abstract void register(String arguments) throws Exception;

    abstract void start() throws Exception;

    /**
     * Starts a service whose agent ends at once. The real SCM answers the start once the service's main has been
     * dispatched, so this is {@link #start()} by default; a manager that reads the state only after the service
     * may already have stopped overrides it.
     */
    void startAServiceThatEndsAtOnce() throws Exception {
        start();
    }

    abstract void stop() throws Exception;

    abstract Status status() throws Exception;

    /** The status once the service is in {@code state}; fails the test when that takes longer than the timeout. */
    abstract Status awaitState(int state) throws Exception;

    /** {@link #record} as the service sees it, for {@code --stand-in-record}. */
    abstract String recordArgument();

    /** The longest a stop may take when the agent ignores it: the launcher's 30 s grace and the manager's slack. */
    abstract Duration ignoredStopLimit();

    /** Checks what only this manager shows of a running service; nothing by default. */
    void checkRunning() throws Exception {
    }

    /** Skips the test where this manager does not start kube-proxy.exe as a service without the flag. */
    void assumeAFlaglessStartIsAService() {
    }

    /** Checks, after the service stopped for want of the agent jar, that it said why; nothing by default. */
    void checkTheMissingJarWasReported() throws Exception {
    }

    @Test
    void kubeProxyExeAsTheBinaryPathRunsTheAgentAndAStopEndsItGracefullyWithExitCodeZero() throws Exception {
        register("--windows-service --v=2 \"--stand-in-record=" + recordArgument() + "\"");
        start();

        awaitState(RUNNING);
        checkRunning();
        assertThat(recorded()).contains("ready");
        assertThat(recorded().get(0)).startsWith("started --windows-service --v=2 --stand-in-record=");

        stop();
        assertThat(awaitState(STOPPED).win32ExitCode()).isZero();
        assertThat(recorded()).containsSubsequence("ready", "stop signalled", "exit 0");
    }

    @Test
    void withoutTheFlagTheScmStartStillMakesKubeProxyExeTheService() throws Exception {
        // windowsRunAsService: true in a --config file: nothing on the command line says "service"
        assumeAFlaglessStartIsAService();
        register("\"--stand-in-record=" + recordArgument() + "\"");
        start();

        awaitState(RUNNING);
        stop();
        assertThat(awaitState(STOPPED).win32ExitCode()).isZero();
        assertThat(recorded()).containsSubsequence("ready", "stop signalled", "exit 0");
    }

    @Test
    void anAgentThatFailsStopsTheServiceWithItsCodeAsTheServiceSpecificExitCode() throws Exception {
        register("--windows-service --stand-in-fail=3 \"--stand-in-record=" + recordArgument() + "\"");
        startAServiceThatEndsAtOnce();

        Status stopped = awaitState(STOPPED);
        assertThat(stopped.win32ExitCode()).isEqualTo(ERROR_SERVICE_SPECIFIC_ERROR);
        assertThat(stopped.serviceExitCode()).isEqualTo(3);
    }

    @Test
    void aStopWhileStartingIsHonoured() throws Exception {
        register("--windows-service --stand-in-never-ready \"--stand-in-record=" + recordArgument() + "\"");
        start();
        awaitRecorded("started");
        assertThat(status().state()).isEqualTo(START_PENDING);

        stop();
        assertThat(awaitState(STOPPED).win32ExitCode()).isZero();
        assertThat(recorded()).containsSubsequence("stop signalled", "exit 0").doesNotContain("ready");
    }

    @Test
    void anAgentThatIgnoresTheStopIsTerminatedAfterThirtySecondsAndTheStopStillCountsAsClean() throws Exception {
        register("--windows-service --stand-in-ignore-stop \"--stand-in-record=" + recordArgument() + "\"");
        start();
        awaitState(RUNNING);

        long stopAt = System.nanoTime();
        stop();
        Status stopped = awaitState(STOPPED);
        Duration took = Duration.ofNanos(System.nanoTime() - stopAt);

        assertThat(stopped.win32ExitCode()).isZero();
        assertThat(took).isBetween(Duration.ofSeconds(29), ignoredStopLimit());
        assertThat(recorded()).contains("stop signalled").noneMatch(line -> line.startsWith("exit"));
    }

    @Test
    void withoutTheAgentJarTheServiceStopsWithCodeOne() throws Exception {
        Files.delete(home.resolve("winproxy-agent.jar"));
        register("--windows-service");
        startAServiceThatEndsAtOnce();

        Status stopped = awaitState(STOPPED);
        assertThat(stopped.win32ExitCode()).isEqualTo(ERROR_SERVICE_SPECIFIC_ERROR);
        assertThat(stopped.serviceExitCode()).isEqualTo(1);
        checkTheMissingJarWasReported();
    }

    /** The stand-in agent's record so far, one step a line (empty before it wrote any). */
    List<String> recorded() throws IOException {
        return Files.exists(record) ? Files.readAllLines(record, StandardCharsets.UTF_8) : List.of();
    }

    /** Waits until the stand-in recorded a line starting with {@code prefix}. */
    void awaitRecorded(String prefix) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (recorded().stream().noneMatch(line -> line.startsWith(prefix))) {
            assertThat(System.nanoTime()).as("[%s] recorded within %s", prefix, TIMEOUT).isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
