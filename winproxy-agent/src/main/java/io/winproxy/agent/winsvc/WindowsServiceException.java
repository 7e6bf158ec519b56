package io.winproxy.agent.winsvc;

/** A failed Win32 service or process call, with the operation and its {@code GetLastError()} code. */
public class WindowsServiceException extends RuntimeException {
    private final String operation;
    private final int win32Error;

    public WindowsServiceException(String operation, int win32Error, String message) {
        super(message);
        this.operation = operation;
        this.win32Error = win32Error;
    }

    /** The Win32 function that failed, e.g. {@code StartServiceCtrlDispatcher}. */
    public String operation() {
        return operation;
    }

    /** The {@code GetLastError()} value, or 0 when the failure did not come from a Win32 call. */
    public int win32Error() {
        return win32Error;
    }

    /** Whether the process was not started by the SCM (run from a console with {@code --windows-service}). */
    public boolean isNotStartedByScm() {
        return win32Error == Win32Service.ERROR_FAILED_SERVICE_CONTROLLER_CONNECT;
    }
}
