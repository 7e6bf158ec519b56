package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.winproxy.agent.winsvc.ScmApi.ServiceMain;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class WindowsServiceHostTest {
    private final FakeScm scm = new FakeScm();
    private final FakeAgent agent = new FakeAgent();

    private static final int ACCEPTED =
            Win32Service.ACCEPT_STOP | Win32Service.ACCEPT_SHUTDOWN | Win32Service.ACCEPT_PARAMCHANGE;

    @Test
    void theServiceReportsStartPendingUntilTheAgentIsReadyAndThenRunning() throws Exception {
        CompletableFuture<Integer> exit = hosted(agent);
        assertThat(agent.started.await(5, TimeUnit.SECONDS)).isTrue();
        scm.awaitStatuses(2); // the first report and one heartbeat (every 20 ms), however the machine schedules them
        assertThat(scm.states()).containsExactly(ServiceState.START_PENDING);

        agent.ready();
        scm.awaitState(ServiceState.RUNNING);

        List<ServiceStatus> pending = scm.statuses.stream()
                .filter(s -> s.state() == ServiceState.START_PENDING).toList();
        assertThat(pending).hasSizeGreaterThan(1).allSatisfy(s -> {
            assertThat(s.controlsAccepted()).as("stop and shutdown only while starting")
                    .isEqualTo(Win32Service.ACCEPT_STOP | Win32Service.ACCEPT_SHUTDOWN);
            assertThat(s.waitHintMillis()).isEqualTo(200);
        });
        assertThat(pending).extracting(ServiceStatus::checkPoint).startsWith(1, 2).isSorted().doesNotHaveDuplicates();
        ServiceStatus running = scm.statuses.get(pending.size());
        assertThat(running).isEqualTo(new ServiceStatus(ServiceState.RUNNING, ACCEPTED, 0, 0, 0, 0));

        scm.send(Win32Service.CONTROL_STOP);
        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void aStopControlAsksTheAgentToStopAndTheServiceEndsStoppedWithExitCodeZero() throws Exception {
        CompletableFuture<Integer> exit = running();

        stopsWith(Win32Service.CONTROL_STOP, exit);
        assertThat(scm.states()).containsExactly(ServiceState.START_PENDING, ServiceState.RUNNING,
                ServiceState.STOP_PENDING, ServiceState.STOPPED);
        ServiceStatus stopPending = scm.statuses.stream()
                .filter(s -> s.state() == ServiceState.STOP_PENDING).findFirst().orElseThrow();
        assertThat(stopPending.waitHintMillis()).isEqualTo(200);
        assertThat(stopPending.checkPoint()).isEqualTo(1);
        assertThat(stopPending.controlsAccepted()).isZero();
        assertThat(scm.last()).isEqualTo(new ServiceStatus(ServiceState.STOPPED, 0, 0, 0, 0, 0));
        assertThat(scm.last().isFailure()).isFalse();
    }

    @Test
    void aStopWhileStartPendingStopsTheAgentBeforeItIsReadyAndRunningIsNeverReported() throws Exception {
        CompletableFuture<Integer> exit = hosted(agent);
        assertThat(agent.started.await(5, TimeUnit.SECONDS)).isTrue();
        scm.awaitState(ServiceState.START_PENDING);
        assertThat(scm.last().controlsAccepted() & Win32Service.ACCEPT_STOP).isNotZero();

        stopsWith(Win32Service.CONTROL_STOP, exit);
        assertThat(scm.states()).containsExactly(ServiceState.START_PENDING, ServiceState.STOP_PENDING,
                ServiceState.STOPPED);
        assertThat(scm.last()).isEqualTo(new ServiceStatus(ServiceState.STOPPED, 0, 0, 0, 0, 0));
    }

    @Test
    void aStopThatArrivesWhileTheAgentIsStillStartingClosesWhatItStartedOnceTheStartReturns() throws Exception {
        CountDownLatch starting = new CountDownLatch(1);
        CountDownLatch finishStart = new CountDownLatch(1);
        AtomicBoolean closed = new AtomicBoolean();
        ServiceAgent slowStart = ServiceAgent.untilStopped(() -> {
            starting.countDown();
            finishStart.await();
            return () -> closed.set(true);
        });
        CompletableFuture<Integer> exit = hosted(slowStart);
        assertThat(starting.await(5, TimeUnit.SECONDS)).isTrue();

        scm.send(Win32Service.CONTROL_STOP);
        Thread.sleep(50);
        assertThat(exit).as("still starting").isNotDone();
        finishStart.countDown();

        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        assertThat(closed).isTrue();
        assertThat(scm.states()).doesNotContain(ServiceState.RUNNING);
        assertThat(scm.last().isFailure()).isFalse();
    }

    @Test
    void aStopBeforeTheAgentEvenRanIsNotLost() throws Exception {
        AtomicBoolean closed = new AtomicBoolean();
        ServiceAgent started = ServiceAgent.untilStopped(() -> () -> closed.set(true));
        started.requestStop();

        CompletableFuture<Integer> exit = hosted(started);

        // The agent ends at once; unasked by this host, so it is reported as a failure, but it does not hang.
        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(closed).isTrue();
    }

    @Test
    void aShutdownControlStopsTheServiceLikeAStop() throws Exception {
        CompletableFuture<Integer> exit = running();

        stopsWith(Win32Service.CONTROL_SHUTDOWN, exit);
        assertThat(scm.last().state()).isEqualTo(ServiceState.STOPPED);
        assertThat(scm.last().win32ExitCode()).isZero();
    }

    @Test
    void aSecondStopWhileStoppingDoesNotAskTheAgentAgain() throws Exception {
        agent.ready();
        agent.ignoreStop();
        CompletableFuture<Integer> exit = hosted(agent);
        scm.awaitState(ServiceState.RUNNING);

        scm.send(Win32Service.CONTROL_STOP);
        agent.awaitStopRequests(1);
        scm.send(Win32Service.CONTROL_SHUTDOWN);
        Thread.sleep(50);
        assertThat(agent.stopRequests).hasValue(1);

        agent.exit(0);
        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void anAgentWhoseStopBlocksDoesNotHoldUpTheScmControlThread() throws Exception {
        agent.ready();
        CountDownLatch release = agent.blockStop();
        CompletableFuture<Integer> exit = hosted(agent);
        scm.awaitState(ServiceState.RUNNING);

        long started = System.nanoTime();
        assertThat(scm.send(Win32Service.CONTROL_STOP)).isEqualTo(Win32Service.NO_ERROR);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
        agent.awaitStopRequests(1);
        assertThat(scm.last().state()).isEqualTo(ServiceState.STOP_PENDING);

        release.countDown();
        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        assertThat(scm.last().state()).isEqualTo(ServiceState.STOPPED);
    }

    @Test
    void anAgentThatFailsEndsTheServiceWithAServiceSpecificErrorSoThatRecoveryActionsFire() throws Exception {
        CompletableFuture<Integer> exit = running();

        agent.exit(3);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(3);
        assertThat(scm.last()).isEqualTo(new ServiceStatus(ServiceState.STOPPED, 0,
                Win32Service.ERROR_SERVICE_SPECIFIC_ERROR, 3, 0, 0));
        assertThat(scm.last().isFailure()).isTrue();
        assertThat(scm.states()).doesNotContain(ServiceState.STOP_PENDING);
    }

    @Test
    void aFailureWhileStoppingOnRequestIsNotReportedSoTheStoppedServiceStaysStopped() throws Exception {
        ServiceAgent closeFails = ServiceAgent.untilStopped(() -> () -> {
            throw new IllegalStateException("informer did not stop");
        });
        CompletableFuture<Integer> exit = hosted(closeFails);
        scm.awaitState(ServiceState.RUNNING);

        scm.send(Win32Service.CONTROL_STOP);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        assertThat(scm.last()).isEqualTo(new ServiceStatus(ServiceState.STOPPED, 0, 0, 0, 0, 0));
    }

    @Test
    void anAgentThatThrowsIsReportedAsFailureWithCodeOne() throws Exception {
        CompletableFuture<Integer> exit = running();

        agent.fail(new IllegalStateException("HNS network cbr0 not found"));

        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(scm.last().win32ExitCode()).isEqualTo(Win32Service.ERROR_SERVICE_SPECIFIC_ERROR);
        assertThat(scm.last().serviceSpecificExitCode()).isEqualTo(1);
    }

    @Test
    void anAgentThatReturnsZeroWithoutBeingAskedToStopIsStillAFailure() throws Exception {
        CompletableFuture<Integer> exit = running();

        agent.exit(0);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(scm.last().isFailure()).isTrue();
    }

    @Test
    void anAgentThatFailsWhileStartingNeverReportsRunning() throws Exception {
        CompletableFuture<Integer> exit = hosted(agent);
        assertThat(agent.started.await(5, TimeUnit.SECONDS)).isTrue();

        agent.exit(2);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(scm.states()).containsExactly(ServiceState.START_PENDING, ServiceState.STOPPED);
        assertThat(scm.last().serviceSpecificExitCode()).isEqualTo(2);
    }

    @Test
    void anAgentThatNeverSaysReadyIsReportedRunningAfterTheReadyTimeout() throws Exception {
        // a ready timeout of 1 s for heartbeats every 20 ms: room for two even when the machine is loaded
        ServiceTimings timings = new ServiceTimings(Duration.ofMillis(200), Duration.ofMillis(20),
                Duration.ofSeconds(1), Duration.ofSeconds(5));
        CompletableFuture<Integer> exit = scm.start(new WindowsServiceHost(scm.api, timings), agent);

        scm.awaitState(ServiceState.RUNNING);

        List<ServiceStatus> startPending = scm.statuses.stream()
                .filter(s -> s.state() == ServiceState.START_PENDING).toList();
        assertThat(startPending).as("the checkpoint advanced while waiting").hasSizeGreaterThanOrEqualTo(2);
        assertThat(startPending).extracting(ServiceStatus::checkPoint).isSorted().doesNotHaveDuplicates();
        scm.send(Win32Service.CONTROL_STOP);
        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void anAgentThatIgnoresTheStopIsReportedStoppedAfterTheStopTimeoutWithoutAFailureCode() throws Exception {
        ServiceTimings timings = new ServiceTimings(Duration.ofMillis(200), Duration.ofMillis(20),
                Duration.ofSeconds(5), Duration.ofSeconds(1));
        agent.ready();
        agent.ignoreStop();
        CompletableFuture<Integer> exit = scm.start(new WindowsServiceHost(scm.api, timings), agent);
        scm.awaitState(ServiceState.RUNNING);

        scm.send(Win32Service.CONTROL_STOP);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        List<ServiceStatus> stopPending = scm.statuses.stream()
                .filter(s -> s.state() == ServiceState.STOP_PENDING).toList();
        // At least the first report and one advance: a loaded machine may not schedule the reporter more often (it
        // once did not in a 150 ms stop timeout, checkpoints every 20 ms); the timeout is 1 s now.
        assertThat(stopPending).hasSizeGreaterThanOrEqualTo(2);
        assertThat(stopPending).extracting(ServiceStatus::checkPoint).isSorted().doesNotHaveDuplicates();
        assertThat(scm.last()).isEqualTo(new ServiceStatus(ServiceState.STOPPED, 0, 0, 0, 0, 0));
        agent.exit(0);
    }

    @Test
    void interrogateAndParamChangeRepeatTheCurrentStatusAndOtherControlsAreNotImplemented() throws Exception {
        CompletableFuture<Integer> exit = running();
        int before = scm.statuses.size();

        assertThat(scm.send(Win32Service.CONTROL_INTERROGATE)).isEqualTo(Win32Service.NO_ERROR);
        assertThat(scm.send(Win32Service.CONTROL_PARAMCHANGE)).isEqualTo(Win32Service.NO_ERROR);
        assertThat(scm.send(0x2 /* PAUSE */)).isEqualTo(Win32Service.ERROR_CALL_NOT_IMPLEMENTED);

        assertThat(scm.statuses.subList(before, before + 2)).allSatisfy(s ->
                assertThat(s).isEqualTo(new ServiceStatus(ServiceState.RUNNING, ACCEPTED, 0, 0, 0, 0)));
        assertThat(agent.stopRequests).hasValue(0);
        scm.send(Win32Service.CONTROL_STOP);
        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void startedFromAConsoleTheHostFailsWithAMessageNamingTheFlag() {
        doThrow(new WindowsServiceException("StartServiceCtrlDispatcher",
                Win32Service.ERROR_FAILED_SERVICE_CONTROLLER_CONNECT, "StartServiceCtrlDispatcher failed"))
                .when(scm.api).runDispatcher(eq("kube-proxy"), any(ServiceMain.class));
        WindowsServiceHost host = new WindowsServiceHost(scm.api, FakeScm.fastTimings());

        assertThatThrownBy(() -> host.run("kube-proxy", agent))
                .isInstanceOfSatisfying(WindowsServiceException.class, e -> {
                    assertThat(e.isNotStartedByScm()).isTrue();
                    assertThat(e.getMessage()).startsWith("--windows-service:").doesNotContain("\n");
                });
        assertThat(agent.started.getCount()).as("the agent never ran").isOne();
    }

    @Test
    void aFailedControlHandlerRegistrationFailsTheRunWithoutStartingTheAgent() {
        when(scm.api.registerControlHandler(eq("kube-proxy"), any()))
                .thenThrow(new WindowsServiceException("RegisterServiceCtrlHandlerEx", 1060, "no such service"));
        WindowsServiceHost host = new WindowsServiceHost(scm.api, FakeScm.fastTimings());

        assertThatThrownBy(() -> host.run("kube-proxy", agent)).isInstanceOf(WindowsServiceException.class)
                .extracting(e -> ((WindowsServiceException) e).win32Error()).isEqualTo(1060);
        assertThat(agent.started.getCount()).isOne();
        assertThat(scm.statuses).isEmpty();
    }

    @Test
    void theControlHandlerIsRegisteredUnderTheNameTheScmStartedTheServiceWith() throws Exception {
        scm.serviceArgs = new String[] {"kubeproxy"};
        agent.ready();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                () -> new WindowsServiceHost(scm.api, FakeScm.fastTimings()).run(agent));
        scm.awaitState(ServiceState.RUNNING);
        scm.send(Win32Service.CONTROL_STOP);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        verify(scm.api).runDispatcher(eq(WindowsServiceHost.DEFAULT_SERVICE_NAME), any());
        verify(scm.api).registerControlHandler(eq("kubeproxy"), any());
    }

    @Test
    void untilStoppedClosesWhatItStartedWhenTheServiceIsStopped() throws Exception {
        AtomicBoolean closed = new AtomicBoolean();
        ServiceAgent started = ServiceAgent.untilStopped(() -> () -> closed.set(true));
        CompletableFuture<Integer> exit = hosted(started);
        scm.awaitState(ServiceState.RUNNING);
        assertThat(closed).isFalse();

        scm.send(Win32Service.CONTROL_STOP);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        assertThat(closed).isTrue();
        assertThat(scm.last()).isEqualTo(new ServiceStatus(ServiceState.STOPPED, 0, 0, 0, 0, 0));
    }

    @Test
    void untilStoppedReportsAFailedStartAsAFailureWithoutEverRunning() throws Exception {
        ServiceAgent failing = ServiceAgent.untilStopped(() -> {
            throw new IllegalStateException("HNS network Calico not found");
        });
        CompletableFuture<Integer> exit = hosted(failing);

        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(scm.states()).containsExactly(ServiceState.START_PENDING, ServiceState.STOPPED);
        assertThat(scm.last().win32ExitCode()).isEqualTo(Win32Service.ERROR_SERVICE_SPECIFIC_ERROR);
    }

    @Test
    void aHostRunsOneServiceOnlyOnce() throws Exception {
        agent.ready();
        WindowsServiceHost host = new WindowsServiceHost(scm.api, FakeScm.fastTimings());
        CompletableFuture<Integer> exit = scm.start(host, agent);
        scm.awaitState(ServiceState.RUNNING);
        scm.send(Win32Service.CONTROL_STOP);
        exit.get(5, TimeUnit.SECONDS);

        assertThatThrownBy(() -> host.run("kube-proxy", new FakeAgent())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theExitCodeOfTheRunIsTheOneReportedToTheScm() throws Exception {
        CompletableFuture<Integer> exit = running();
        agent.exit(42);
        assertThat(exit.get(5, TimeUnit.SECONDS)).isEqualTo(scm.last().serviceSpecificExitCode()).isEqualTo(42);
    }

    /** The fake SCM runs a host on fast timings for {@code serviceAgent}; the future is the service's exit code. */
    private CompletableFuture<Integer> hosted(ServiceAgent serviceAgent) {
        return scm.start(new WindowsServiceHost(scm.api, FakeScm.fastTimings()), serviceAgent);
    }

    /** The test agent, ready at once, hosted until the service reports RUNNING. */
    private CompletableFuture<Integer> running() throws Exception {
        agent.ready();
        CompletableFuture<Integer> exit = hosted(agent);
        scm.awaitState(ServiceState.RUNNING);
        return exit;
    }

    /** The host accepts {@code control}, then the service exits 0 having asked the agent to stop exactly once. */
    private void stopsWith(int control, CompletableFuture<Integer> exit) throws Exception {
        assertThat(scm.send(control)).isEqualTo(Win32Service.NO_ERROR);
        assertThat(exit.get(5, TimeUnit.SECONDS)).isZero();
        assertThat(agent.stopRequests).hasValue(1);
    }
}
