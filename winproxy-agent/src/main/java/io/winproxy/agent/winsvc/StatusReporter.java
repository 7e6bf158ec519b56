package io.winproxy.agent.winsvc;

import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service state machine as the SCM sees it. Thread-safe: the service-main thread and the SCM control thread
 * both report through it. It only allows forward transitions
 * ({@code START_PENDING -> RUNNING -> STOP_PENDING -> STOPPED}, any of them may be skipped), so a late
 * {@code RUNNING} can never overwrite a {@code STOP_PENDING}; it advances the checkpoint while pending and sets
 * the accepted controls per state.
 *
 * <p>The SCM delivers a control in any state whose report lists it in {@code dwControlsAccepted}, and answers
 * {@code ERROR_SERVICE_CANNOT_ACCEPT_CTRL} (1061) for one it does not. Microsoft's sample service accepts nothing
 * while {@code START_PENDING}; this one accepts STOP and SHUTDOWN then ({@link #ACCEPTED_WHILE_STARTING}), so that
 * {@code Stop-Service} during a long first sync (or a system shutdown) is honoured at once instead of refused, and
 * RUNNING is then never reported. While {@code STOP_PENDING} and once {@code STOPPED} nothing is accepted (a second
 * stop has nothing to do); INTERROGATE is always delivered, whatever is listed. kube-proxy.exe's service mode
 * (svcstate.c) follows the same rules.
 */
final class StatusReporter {
    static final int ACCEPTED_WHEN_RUNNING =
            Win32Service.ACCEPT_STOP | Win32Service.ACCEPT_SHUTDOWN | Win32Service.ACCEPT_PARAMCHANGE;
    static final int ACCEPTED_WHILE_STARTING = Win32Service.ACCEPT_STOP | Win32Service.ACCEPT_SHUTDOWN;

    /** The order of the states in a service's life, which is not the order of their Win32 values. */
    private static final List<ServiceState> LIFE = List.of(ServiceState.START_PENDING, ServiceState.RUNNING,
            ServiceState.STOP_PENDING, ServiceState.STOPPED);
    private static final Comparator<ServiceState> LIFECYCLE = Comparator.comparingInt(LIFE::indexOf);
    private static final Logger logger = LoggerFactory.getLogger(StatusReporter.class);

    private final ScmApi scm;
    private final ScmApi.StatusHandle handle;
    private final int waitHintMillis;
    private ServiceStatus current;

    StatusReporter(ScmApi scm, ScmApi.StatusHandle handle, int waitHintMillis) {
        this.scm = scm;
        this.handle = handle;
        this.waitHintMillis = waitHintMillis;
    }

    /**
     * Reports {@code state} (re-reporting a pending state advances its checkpoint).
     *
     * @return false, without reporting, when the transition would go backwards
     */
    synchronized boolean report(ServiceState state) {
        return report(state, Win32Service.NO_ERROR, 0);
    }

    /** Reports {@code STOPPED} with the given exit codes; see {@link ServiceStatus}. */
    synchronized boolean stopped(int win32ExitCode, int serviceSpecificExitCode) {
        return report(ServiceState.STOPPED, win32ExitCode, serviceSpecificExitCode);
    }

    /** Sends the current status again (INTERROGATE, PARAMCHANGE). */
    synchronized void repeat() {
        if (current != null) {
            send(current);
        }
    }

    synchronized ServiceState state() {
        return current == null ? null : current.state();
    }

    private boolean report(ServiceState state, int win32ExitCode, int serviceSpecificExitCode) {
        if (current != null && (LIFECYCLE.compare(state, current.state()) < 0
                || current.state() == ServiceState.STOPPED)) {
            return false;
        }
        int checkPoint = 0;
        if (state.isPending()) {
            checkPoint = current != null && current.state() == state ? current.checkPoint() + 1 : 1;
        }
        int accepted = accepted(state);
        current = new ServiceStatus(state, accepted, win32ExitCode, serviceSpecificExitCode, checkPoint,
                state.isPending() ? waitHintMillis : 0);
        send(current);
        return true;
    }

    private static int accepted(ServiceState state) {
        return switch (state) {
            case START_PENDING -> ACCEPTED_WHILE_STARTING;
            case RUNNING -> ACCEPTED_WHEN_RUNNING;
            case STOP_PENDING, STOPPED -> 0;
        };
    }


    private void send(ServiceStatus status) {
        try {
            scm.setStatus(handle, status);
        } catch (WindowsServiceException e) {
            // Nothing else can be told to the SCM; the service keeps going and the next report may succeed.
            logger.atWarn().setMessage("Could not report the service status").addKeyValue("state", status.state())
                    .addKeyValue("err", e.getMessage()).log();
        }
    }
}
