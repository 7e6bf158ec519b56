package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * kube-proxy.exe as a service's binary path, registered, started, queried and stopped with {@code sc.exe} through the
 * service manager of a Windows API: Wine's on Linux (skipped with one line where Wine cannot be had), the real SCM on
 * Windows (needs an elevated prompt; skipped otherwise). The agent is the stand-in runtime (src/test/c/java-standin.c)
 * playing ServiceAgentStandIn's part: it signals ready, ends on the stop event, records each step in a file.
 * The scenarios of {@link KubeProxyExeServiceScenarios}, less the event-log check; the start without
 * --windows-service runs on Windows only.
 */
class KubeProxyExeServiceWineIT extends KubeProxyExeServiceScenarios {
    private static final Duration SC = Duration.ofSeconds(30);

    @TempDir
    static Path root;
    @RegisterExtension
    static final WindowsApiHostExtension WINDOWS = new WindowsApiHostExtension();
    private WindowsApiHost host;
    private String exe;
    private final String name = "winproxy-it-" + UUID.randomUUID().toString().substring(0, 8);
    private boolean registered;

    @BeforeEach
    void unpackTheLauncherBesideAStandInRuntime() throws IOException {
        host = WINDOWS.host();
        home = root.resolve(name);
        exe = host.windowsPath(LauncherFolder.create(home));
        record = home.resolve("record.txt");
    }

    @AfterEach
    void deleteTheService() throws Exception {
        if (registered) {
            sc("stop", name);
            awaitState(STOPPED);
            sc("delete", name);
        }
    }

    @Override
    String recordArgument() {
        return host.windowsPath(record);
    }

    @Override
    Duration ignoredStopLimit() {
        return Duration.ofSeconds(50);
    }

    @Override
    void assumeAFlaglessStartIsAService() {
        // started_by_scm() looks for its parent services.exe in session 0; under Wine it does not find it there, so
        // without the flag kube-proxy.exe runs as a console program and "sc start" fails: Windows only
        assumeTrue(host instanceof WindowsApiHost.Native, "Wine's services.exe is not recognised as the SCM");
    }

    @Override
    void register(String arguments) throws Exception {
        // sc.exe's own syntax: "binPath=" and its value are two arguments
        WindowsApiHost.Result created = sc("create", name, "binPath=", "\"" + exe + "\" " + arguments);
        assumeTrue(created.exitCode() != 5, "registering a service needs an elevated prompt");
        assertThat(created.exitCode()).as("sc create: %s%s", created.stdout(), created.stderr()).isZero();
        registered = true;
    }

    /**
     * OpenShift WMCO puts kube-log-runner.exe in front of kube-proxy.exe: the service's program is the runner, which
     * hands kube-proxy.exe a log file as its standard output and error. kube-proxy.exe is the service (it connects to
     * the service manager) and must hand the agent that file, not NUL, or the runner's log stays empty.
     */
    @Test
    void behindALogRunnerTheAgentsOutputReachesTheRunnersFile() throws Exception {
        Path log = home.resolve("kube-proxy.log");
        String harness = host.windowsPath(WindowsApiHost.TOOLS.resolve("harness.exe").toAbsolutePath());
        WindowsApiHost.Result created = sc("create", name, "binPath=", "\"" + harness + "\" runner \""
                + host.windowsPath(log) + "\" \"" + exe + "\" --windows-service --stand-in-say=agent-output"
                + " --stand-in-record=" + recordArgument());
        assumeTrue(created.exitCode() != 5, "registering a service needs an elevated prompt");
        assertThat(created.exitCode()).as("sc create: %s%s", created.stdout(), created.stderr()).isZero();
        registered = true;

        start();
        awaitState(RUNNING);
        stop();
        Status stopped = awaitState(STOPPED);

        assertThat(stopped.win32ExitCode()).isZero();
        assertThat(Files.readString(log, StandardCharsets.UTF_8)).contains("agent-output stdout")
                .contains("agent-output stderr");
    }

    @Override
    void start() throws Exception {
        long at = System.nanoTime();
        WindowsApiHost.Result started = sc("start", name);
        // the time tells Wine's timeout (10 s to connect and again to report a first status) from a refusal
        assertThat(started.exitCode()).as("sc start after %d ms: %s%s", millisSince(at), started.stdout(),
                started.stderr()).isZero();
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /**
     * Wine's services.exe waits for the service's first status change and then reads the state once: when
     * kube-proxy.exe has already reported STOPPED by then (the agent failed, or there was no agent jar),
     * StartService fails with ERROR_SERVICE_REQUEST_TIMEOUT and {@code sc start} exits 1 without a word (Wine's
     * sc.exe traces its errors only). The real SCM answers the start once the service's main is dispatched. So here
     * a failed start is accepted; the scenario's own checks (STOPPED, the expected service-specific exit code) still
     * decide, and they hold only if kube-proxy.exe ran and stopped for the scenario's reason (when Wine gives up
     * waiting instead, it terminates the process, and the exit codes tell).
     */
    @Override
    void startAServiceThatEndsAtOnce() throws Exception {
        long at = System.nanoTime();
        WindowsApiHost.Result started = sc("start", name);
        if (started.exitCode() != 0) {
            System.out.printf("sc start exited %d after %d ms (%s%s): Wine read the state after the service had"
                    + " stopped%n", started.exitCode(), millisSince(at), started.stdout().strip(),
                    started.stderr().strip());
        }
    }

    @Override
    void stop() throws Exception {
        WindowsApiHost.Result stopped = sc("stop", name);
        assertThat(stopped.exitCode()).as("sc stop: %s%s", stopped.stdout(), stopped.stderr()).isZero();
    }

    private WindowsApiHost.Result sc(String... args) throws IOException, InterruptedException {
        return host.run(SC, Map.of(), "sc", args);
    }

    /** The service's status as {@code sc query} prints it. */
    @Override
    Status status() throws IOException, InterruptedException {
        WindowsApiHost.Result query = sc("query", name);
        assertThat(query.exitCode()).as("sc query: %s%s", query.stdout(), query.stderr()).isZero();
        return parse(query);
    }

    private static Status parse(WindowsApiHost.Result query) {
        return new Status(field(query.stdout(), "STATE"), field(query.stdout(), "WIN32_EXIT_CODE"),
                field(query.stdout(), "SERVICE_EXIT_CODE"));
    }

    private static int field(String output, String name) {
        Matcher matcher = Pattern.compile("(?m)^\\s*" + name + "\\s*:\\s*(\\d+)").matcher(output);
        assertThat(matcher.find()).as("%s in [%s]", name, output).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    /**
     * Polls {@code sc query} until the service is in the state. A query that fails on the way is polled again: on a
     * loaded CI machine Wine's sc.exe once exited 1 without a word (its status query failed) while the service was
     * stop-pending. Only the deadline fails the test, with the last answer in its message.
     */
    @Override
    Status awaitState(int state) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            WindowsApiHost.Result query = sc("query", name);
            Status status = query.exitCode() == 0 ? parse(query) : null;
            if (status != null && status.state() == state) {
                return status;
            }
            String now = status != null ? "state " + status.state()
                    : "sc query exit " + query.exitCode() + ": " + query.stdout() + query.stderr();
            assertThat(System.nanoTime()).as("state %s within %s; last: %s", state, TIMEOUT, now)
                    .isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
