package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doThrow;

import org.junit.jupiter.api.Test;

class StatusReporterTest {
    private final FakeScm scm = new FakeScm();
    private final StatusReporter reporter = new StatusReporter(scm.api, scm.handle, 10_000);

    @Test
    void aRunningReportCannotFollowAStopPendingReport() {
        reporter.report(ServiceState.START_PENDING);
        reporter.report(ServiceState.STOP_PENDING);

        assertThat(reporter.report(ServiceState.RUNNING)).isFalse();
        assertThat(reporter.report(ServiceState.START_PENDING)).isFalse();
        assertThat(scm.states()).containsExactly(ServiceState.START_PENDING, ServiceState.STOP_PENDING);
    }

    @Test
    void nothingIsReportedAfterStopped() {
        reporter.report(ServiceState.RUNNING);
        reporter.stopped(0, 0);

        assertThat(reporter.report(ServiceState.STOP_PENDING)).isFalse();
        assertThat(reporter.stopped(Win32Service.ERROR_SERVICE_SPECIFIC_ERROR, 1)).isFalse();
        assertThat(scm.statuses).hasSize(2);
    }

    @Test
    void theCheckpointRestartsAtOneForEachPendingStateAndIsZeroOtherwise() {
        reporter.report(ServiceState.START_PENDING);
        reporter.report(ServiceState.START_PENDING);
        reporter.report(ServiceState.RUNNING);
        reporter.report(ServiceState.STOP_PENDING);

        assertThat(scm.statuses).extracting(ServiceStatus::checkPoint).containsExactly(1, 2, 0, 1);
        assertThat(scm.statuses).extracting(ServiceStatus::waitHintMillis).containsExactly(10_000, 10_000, 0, 10_000);
    }

    @Test
    void stopAndShutdownAreAcceptedWhileStartingAndNothingWhileStopping() {
        reporter.report(ServiceState.START_PENDING);
        reporter.report(ServiceState.RUNNING);
        reporter.report(ServiceState.STOP_PENDING);
        reporter.stopped(0, 0);

        assertThat(scm.statuses).extracting(ServiceStatus::controlsAccepted).containsExactly(
                Win32Service.ACCEPT_STOP | Win32Service.ACCEPT_SHUTDOWN,
                Win32Service.ACCEPT_STOP | Win32Service.ACCEPT_SHUTDOWN | Win32Service.ACCEPT_PARAMCHANGE, 0, 0);
    }

    @Test
    void aFailingSetServiceStatusIsLoggedAndTheStateMachineCarriesOn() {
        doThrow(new WindowsServiceException("SetServiceStatus", 6, "invalid handle"))
                .when(scm.api).setStatus(any(), any());

        assertThat(reporter.report(ServiceState.START_PENDING)).isTrue();
        assertThat(reporter.state()).isEqualTo(ServiceState.START_PENDING);
        assertThat(reporter.report(ServiceState.RUNNING)).isTrue();
    }
}
