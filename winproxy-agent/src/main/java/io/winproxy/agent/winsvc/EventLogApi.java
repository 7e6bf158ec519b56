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

    /** Whether this process has a console window ({@code GetConsoleWindow() != NULL}); a service has none. */
    boolean hasConsole();
}
