package io.winproxy.agent.winsvc;

/**
 * The thin edge over the Win32 service-control calls of {@code advapi32.dll}. Production code uses
 * {@link JnaScmApi}; tests substitute a mock and drive the callbacks themselves, the way the SCM would.
 * All methods throw {@link WindowsServiceException} (with the Win32 error code) when the call fails.
 */
public interface ScmApi {

    /** {@code LPSERVICE_MAIN_FUNCTIONW}: runs on a thread the SCM creates; the service lives as long as it runs. */
    @FunctionalInterface
    interface ServiceMain {
        void serviceMain(String[] args);
    }

    /** {@code LPHANDLER_FUNCTION_EX}: called on the dispatcher thread; must return quickly. */
    @FunctionalInterface
    interface ControlHandler {
        /**
         * @return a Win32 error code: {@link Win32Service#NO_ERROR} or
         *         {@link Win32Service#ERROR_CALL_NOT_IMPLEMENTED}
         */
        int control(int control, int eventType);
    }

    /** An opaque {@code SERVICE_STATUS_HANDLE}; it is not closed. */
    interface StatusHandle {
    }

    /**
     * {@code StartServiceCtrlDispatcherW} with a one-entry table: blocks the calling thread until {@code serviceMain}
     * has returned and the service has reported {@link ServiceState#STOPPED}.
     */
    void runDispatcher(String serviceName, ServiceMain serviceMain);

    /** {@code RegisterServiceCtrlHandlerExW}; call first thing in {@code serviceMain}. */
    StatusHandle registerControlHandler(String serviceName, ControlHandler handler);

    /** {@code SetServiceStatus}. */
    void setStatus(StatusHandle handle, ServiceStatus status);
}
