package io.winproxy.agent.winsvc;

/**
 * One {@code SERVICE_STATUS} report, free of JNA types so that the service logic is testable without Windows.
 *
 * @param state                   {@code dwCurrentState}
 * @param controlsAccepted        {@code dwControlsAccepted}, a mask of {@link Win32Service}{@code .ACCEPT_*}
 * @param win32ExitCode           {@code dwWin32ExitCode}: 0, or {@link Win32Service#ERROR_SERVICE_SPECIFIC_ERROR}
 *                                when {@code serviceSpecificExitCode} carries the agent's code
 * @param serviceSpecificExitCode {@code dwServiceSpecificExitCode}
 * @param checkPoint              {@code dwCheckPoint}: advances while pending, 0 otherwise
 * @param waitHintMillis          {@code dwWaitHint}: how long the SCM should wait for the next report while pending
 */
public record ServiceStatus(ServiceState state, int controlsAccepted, int win32ExitCode,
        int serviceSpecificExitCode, int checkPoint, int waitHintMillis) {

    /** Whether this report tells the SCM that the service failed (which is what fires its recovery actions). */
    public boolean isFailure() {
        return win32ExitCode != 0;
    }
}
