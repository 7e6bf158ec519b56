package io.winproxy.launcher;

import static io.winproxy.launcher.NativeServiceState.ACCEPT_SHUTDOWN;
import static io.winproxy.launcher.NativeServiceState.ACCEPT_STOP;
import static io.winproxy.launcher.NativeServiceState.CONTROL_INTERROGATE;
import static io.winproxy.launcher.NativeServiceState.CONTROL_PARAMCHANGE;
import static io.winproxy.launcher.NativeServiceState.CONTROL_PAUSE;
import static io.winproxy.launcher.NativeServiceState.CONTROL_PRESHUTDOWN;
import static io.winproxy.launcher.NativeServiceState.CONTROL_SHUTDOWN;
import static io.winproxy.launcher.NativeServiceState.CONTROL_STOP;
import static io.winproxy.launcher.NativeServiceState.ERROR_CALL_NOT_IMPLEMENTED;
import static io.winproxy.launcher.NativeServiceState.ERROR_SERVICE_SPECIFIC_ERROR;
import static io.winproxy.launcher.NativeServiceState.NO_ERROR;
import static io.winproxy.launcher.NativeServiceState.RUNNING;
import static io.winproxy.launcher.NativeServiceState.START_PENDING;
import static io.winproxy.launcher.NativeServiceState.STOPPED;
import static io.winproxy.launcher.NativeServiceState.STOP_PENDING;
import static io.winproxy.launcher.NativeServiceState.WAIT_FOREVER;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.launcher.NativeServiceState.Action;
import io.winproxy.launcher.NativeServiceState.Status;
import io.winproxy.launcher.NativeServiceState.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What kube-proxy.exe reports to the SCM when it is itself the service (svcstate.c): the states, checkpoints, wait
 * hints, accepted controls and exit codes for each event, with the launcher's default timings (10 s wait hint, 2 s
 * heartbeat, 60 s ready timeout, 30 s stop timeout) and a clock moved by hand.
 */
class ServiceStateMachineTest {
    private static final int STOP_AND_SHUTDOWN = ACCEPT_STOP | ACCEPT_SHUTDOWN;
    private final NativeServiceState machine = new NativeServiceState();

    @Test
    void theDefaultTimingsAreTheAgentServiceHostsOnes() {
        NativeServiceState.Timings timings = NativeServiceState.defaults();

        assertThat(new int[] {timings.waitHintMs, timings.heartbeatMs, timings.readyTimeoutMs, timings.stopTimeoutMs})
                .containsExactly(10_000, 2_000, 60_000, 30_000);
    }

    @Test
    void startReportsStartPendingWithTheFirstCheckpointAWaitHintAndStopAccepted() {
        Step step = machine.start();

        assertThat(step.actions()).containsExactly(Action.REPORT);
        assertThat(step.status()).isEqualTo(new Status(START_PENDING, STOP_AND_SHUTDOWN, NO_ERROR, 0, 1, 10_000));
        assertThat(machine.beforeLaunch().actions()).containsExactly(Action.LAUNCH);
        assertThat(machine.childStarted().status())
                .isEqualTo(new Status(START_PENDING, STOP_AND_SHUTDOWN, NO_ERROR, 0, 2, 10_000));
    }

    @Test
    void theAgentsReadySignalReportsRunningWithStopAndShutdownAccepted() {
        machine.startAndLaunch();
        machine.advance(1_500);

        Step step = machine.ready();

        assertThat(step.actions()).containsExactly(Action.REPORT);
        assertThat(step.status()).isEqualTo(new Status(RUNNING, STOP_AND_SHUTDOWN, NO_ERROR, 0, 0, 0));
        assertThat(machine.readyTimedOut()).isFalse();
        assertThat(machine.nextWait()).isEqualTo(WAIT_FOREVER);
        assertThat(machine.tick().actions()).isEmpty();
        assertThat(machine.ready().actions()).as("a second ready signal").isEmpty();
    }

    @Test
    void whileStartingEveryHeartbeatReportsTheNextCheckpointSoTheScmDoesNotTimeOut() {
        machine.startAndLaunch(); // checkpoint 2
        assertThat(machine.nextWait()).isEqualTo(2_000);
        machine.advance(1_999);
        assertThat(machine.tick().actions()).as("before the heartbeat is due").isEmpty();
        assertThat(machine.nextWait()).isEqualTo(1);

        for (int checkPoint = 3; checkPoint <= 10; checkPoint++) {
            machine.advance(machine.nextWait());
            Step step = machine.tick();
            assertThat(step.status()).isEqualTo(new Status(START_PENDING, STOP_AND_SHUTDOWN, NO_ERROR, 0, checkPoint,
                    10_000));
            assertThat(machine.nextWait()).isEqualTo(2_000);
        }
    }

    @Test
    void anAgentNotReadyWithinSixtySecondsIsReportedRunningWhileItKeepsTrying() {
        machine.startAndLaunch();
        int reports = 0;
        Step step;
        do {
            machine.advance(machine.nextWait());
            step = machine.tick();
            reports++;
        } while (step.status().state() == START_PENDING);

        assertThat(step.status()).isEqualTo(new Status(RUNNING, STOP_AND_SHUTDOWN, NO_ERROR, 0, 0, 0));
        assertThat(reports).isEqualTo(30); // 29 heartbeats, then RUNNING at 60 s
        assertThat(machine.readyTimedOut()).isTrue();
        assertThat(machine.ready().actions()).as("a late ready signal").isEmpty();
    }

    @Test
    void theReadyTimeoutCountsOnlyOnceTheAgentRuns() {
        machine.start();
        machine.advance(120_000);

        assertThat(machine.tick().status().state()).isEqualTo(START_PENDING);
        assertThat(machine.nextWait()).isEqualTo(2_000);
    }

    @ParameterizedTest(name = "control {0}")
    @ValueSource(ints = {CONTROL_STOP, CONTROL_SHUTDOWN, CONTROL_PRESHUTDOWN})
    void aStopWhileRunningReportsStopPendingAndSignalsTheAgentThenStoppedWithCodeZero(int control) {
        machine.startAndLaunch();
        machine.ready();

        Step stop = machine.control(control);

        assertThat(stop.actions()).containsExactlyInAnyOrder(Action.REPORT, Action.SIGNAL_STOP);
        assertThat(stop.handlerResult()).isEqualTo(NO_ERROR);
        assertThat(stop.status()).isEqualTo(new Status(STOP_PENDING, 0, NO_ERROR, 0, 1, 10_000));
        machine.advance(2_000);
        assertThat(machine.tick().status()).isEqualTo(new Status(STOP_PENDING, 0, NO_ERROR, 0, 2, 10_000));
        machine.advance(700);
        assertThat(machine.childExited(0).status()).isEqualTo(new Status(STOPPED, 0, NO_ERROR, 0, 0, 0));
    }

    @Test
    void aStopWhileStartingIsHonouredAndRunningIsNeverReported() {
        machine.startAndLaunch();
        machine.advance(3_000);

        Step stop = machine.control(CONTROL_STOP);
        assertThat(stop.actions()).containsExactlyInAnyOrder(Action.REPORT, Action.SIGNAL_STOP);
        assertThat(stop.status().state()).isEqualTo(STOP_PENDING);

        assertThat(machine.ready().actions()).as("the agent got ready as the stop came").isEmpty();
        machine.advance(70_000);
        assertThat(machine.tick().status().state()).as("past the ready timeout").isEqualTo(STOP_PENDING);
        assertThat(machine.childExited(0).status().state()).isEqualTo(STOPPED);
    }

    @Test
    void aStopBeforeTheAgentIsLaunchedReportsStoppedAndTheAgentIsNeverStarted() {
        machine.start();
        machine.control(CONTROL_STOP);

        Step step = machine.beforeLaunch();

        assertThat(step.actions()).containsExactly(Action.REPORT);
        assertThat(step.status()).isEqualTo(new Status(STOPPED, 0, NO_ERROR, 0, 0, 0));
    }

    @Test
    void aSecondStopRequestAdvancesTheCheckpointWithoutSignallingAgain() {
        machine.startAndLaunch();
        machine.control(CONTROL_STOP);

        Step again = machine.control(CONTROL_SHUTDOWN);

        assertThat(again.actions()).containsExactly(Action.REPORT);
        assertThat(again.status().checkPoint()).isEqualTo(2);
    }

    @Test
    void anAgentThatOutlivesTheStopTimeoutIsTerminatedOnceAndTheStopStillCountsAsClean() {
        machine.startAndLaunch();
        machine.ready();
        machine.control(CONTROL_STOP);

        int terminations = 0;
        long waited = 0;
        while (waited < 40_000) {
            long wait = machine.nextWait();
            machine.advance(wait);
            waited += wait;
            Step step = machine.tick();
            if (step.actions().contains(Action.TERMINATE)) {
                terminations++;
                assertThat(waited).isEqualTo(30_000);
            }
            assertThat(step.status().state()).isEqualTo(STOP_PENDING);
        }

        assertThat(terminations).isEqualTo(1);
        assertThat(machine.childExited(1).status()).isEqualTo(new Status(STOPPED, 0, NO_ERROR, 0, 0, 0));
    }

    @ParameterizedTest(name = "agent exit code {0} after a stop request")
    @ValueSource(ints = {1, 2, 137})
    void aFailureWhileStoppingIsStillACleanStopSoTheScmDoesNotRestartAStoppedService(int code) {
        machine.startAndLaunch();
        machine.control(CONTROL_STOP);

        assertThat(machine.childExited(code).status()).isEqualTo(new Status(STOPPED, 0, NO_ERROR, 0, 0, 0));
    }

    @ParameterizedTest(name = "agent exit code {0} -> service-specific {1}")
    @CsvSource({"1, 1", "2, 2", "0, 1", "-1, -1"})
    void anAgentThatEndsOnItsOwnIsAServiceSpecificErrorWithItsExitCodeSoRecoveryActionsRun(int code, int specific) {
        machine.startAndLaunch();
        machine.ready();
        machine.advance(5_000);

        Step step = machine.childExited(code);

        assertThat(step.status()).isEqualTo(new Status(STOPPED, 0, ERROR_SERVICE_SPECIFIC_ERROR, specific, 0, 0));
    }

    @Test
    void anAgentThatFailsWhileStartingIsReportedTheSameWay() {
        machine.startAndLaunch();

        assertThat(machine.childExited(2).status())
                .isEqualTo(new Status(STOPPED, 0, ERROR_SERVICE_SPECIFIC_ERROR, 2, 0, 0));
    }

    @Test
    void anAgentThatCannotBeLaunchedIsAServiceSpecificError() {
        machine.start();

        assertThat(machine.launchFailed(1).status())
                .isEqualTo(new Status(STOPPED, 0, ERROR_SERVICE_SPECIFIC_ERROR, 1, 0, 0));
    }

    @Test
    void interrogateRepeatsTheCurrentStatusAndOtherControlsAreNotImplemented() {
        machine.startAndLaunch();
        machine.ready();

        Step interrogate = machine.control(CONTROL_INTERROGATE);
        assertThat(interrogate.actions()).containsExactly(Action.REPORT);
        assertThat(interrogate.status()).isEqualTo(new Status(RUNNING, STOP_AND_SHUTDOWN, NO_ERROR, 0, 0, 0));
        assertThat(interrogate.handlerResult()).isEqualTo(NO_ERROR);

        for (int control : new int[] {CONTROL_PAUSE, CONTROL_PARAMCHANGE, 0x80}) {
            Step step = machine.control(control);
            assertThat(step.actions()).isEmpty();
            assertThat(step.handlerResult()).isEqualTo(ERROR_CALL_NOT_IMPLEMENTED);
        }
    }

    @Test
    void nothingIsReportedAfterStopped() {
        machine.startAndLaunch();
        machine.childExited(2);

        assertThat(machine.control(CONTROL_STOP).actions()).isEmpty();
        assertThat(machine.ready().actions()).isEmpty();
        assertThat(machine.tick().actions()).isEmpty();
        assertThat(machine.childExited(0).actions()).isEmpty();
        assertThat(machine.nextWait()).isEqualTo(WAIT_FOREVER);
    }

    @Test
    void whileStoppingTheNextWaitIsTheSoonerOfTheHeartbeatAndTheStopTimeout() {
        machine.startAndLaunch();
        machine.control(CONTROL_STOP);
        for (int i = 0; i < 14; i++) {
            machine.advance(2_000);
            machine.tick();
        }
        machine.advance(1_500); // 29.5 s after the stop request, 1.5 s after the last heartbeat

        assertThat(machine.nextWait()).isEqualTo(500);
    }

    @ParameterizedTest(name = "--windows-service {0}, started by the SCM {1} -> service {2}")
    @CsvSource({
            // flag: 0 absent, 1 true, 2 false, 3 invalid (cmdline_bool_flag)
            "0, 0, 0",
            "0, 1, 1", // windowsRunAsService: true in the --config file: only the SCM's start tells
            "1, 0, 1", // typed in a console: the dispatcher refuses and the launcher falls back to the console
            "1, 1, 1",
            "2, 0, 0",
            "2, 1, 0", // the flag decides, as it does for kube-proxy
            "3, 0, 1", // the agent refuses the value; as a service that reaches the SCM and the Event Log
            "3, 1, 1"})
    void theFlagDecidesWhetherToRunAsAServiceAndWithoutItTheScmStartDoes(int flag, int scm, int service) {
        assertThat(NativeServiceState.LIBRARY.svc_run_as_service(flag, scm)).isEqualTo(service);
    }
}
