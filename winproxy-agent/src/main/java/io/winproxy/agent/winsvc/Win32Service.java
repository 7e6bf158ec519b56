package io.winproxy.agent.winsvc;

/** Win32 service-control constants (winsvc.h, winerror.h) used by the host; plain ints so tests need no JNA. */
public final class Win32Service {
    /** {@code SERVICE_WIN32_OWN_PROCESS}: the JVM process is the service. */
    public static final int SERVICE_WIN32_OWN_PROCESS = 0x10;

    public static final int CONTROL_STOP = 0x1;
    public static final int CONTROL_INTERROGATE = 0x4;
    public static final int CONTROL_SHUTDOWN = 0x5;
    public static final int CONTROL_PARAMCHANGE = 0x6;
    public static final int CONTROL_PRESHUTDOWN = 0xF;

    public static final int ACCEPT_STOP = 0x1;
    public static final int ACCEPT_SHUTDOWN = 0x4;
    public static final int ACCEPT_PARAMCHANGE = 0x8;

    public static final int NO_ERROR = 0;
    /** Returned by a control handler for a control it does not implement. */
    public static final int ERROR_CALL_NOT_IMPLEMENTED = 120;
    /** {@code dwWin32ExitCode} meaning "see {@code dwServiceSpecificExitCode}". */
    public static final int ERROR_SERVICE_SPECIFIC_ERROR = 1066;
    /** {@code StartServiceCtrlDispatcher} from a process the SCM did not start (e.g. run from a console). */
    public static final int ERROR_FAILED_SERVICE_CONTROLLER_CONNECT = 1063;
    /** The dispatcher was already called in this process. */
    public static final int ERROR_SERVICE_ALREADY_RUNNING = 1056;

    private Win32Service() {
    }
}
