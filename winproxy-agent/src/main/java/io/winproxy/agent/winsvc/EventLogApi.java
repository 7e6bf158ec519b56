package io.winproxy.agent.winsvc;

/**
 * The thin edge over the Windows Event Log and console calls that {@link StartupFailureReporter} needs. Production
 * code uses {@link JnaEventLogApi}; tests mock it.
 */
public interface EventLogApi {
    /** {@code EVENTLOG_ERROR_TYPE}. */
    int ERROR_TYPE = 0x1;

    /**
     * {@code RegisterEventSourceW(NULL, source)}, {@code ReportEventW} with one insertion string, then
     * {@code DeregisterEventSource}. The source need not be registered: the event is then shown with Windows' "the
     * description for Event ID ... cannot be found" preamble followed by {@code message}.
     *
     * @throws WindowsServiceException when a call fails
     */
    void report(String source, int type, int eventId, String message);

    /**
     * Registers {@code source} in the Application log when it is not registered yet, as
     * {@code EventLog.CreateEventSource} (and so {@code install-service.ps1}) does: the key
     * {@code HKLM\SYSTEM\CurrentControlSet\Services\EventLog\Application\<source>} with .NET's
     * {@code EventLogMessages.dll} (which shows any event ID as its one insertion string) as its message file.
     *
     * @return whether it registered the source now (false when it was registered or the message file is absent)
     * @throws RuntimeException when the registry refuses, e.g. a process that is not elevated
     */
    boolean registerSource(String source);

    /** Whether this process has a console window ({@code GetConsoleWindow() != NULL}); a service has none. */
    boolean hasConsole();
}
