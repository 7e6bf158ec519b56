package io.winproxy.agent.winsvc;

import com.sun.jna.CallbackThreadInitializer;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Winsvc;

/**
 * {@link ScmApi} over jna-platform's {@link Advapi32}. Windows only: the library is loaded on construction.
 *
 * <p>The JNA callback objects handed to native code are kept in fields of this instance, so they stay strongly
 * reachable for as long as the dispatcher runs (native code calling a collected callback crashes the JVM). The
 * instance must therefore outlive {@link #runDispatcher}; {@link WindowsServiceHost} guarantees that.
 */
public final class JnaScmApi implements ScmApi {
    private final Advapi32 advapi32;
    private volatile Winsvc.SERVICE_MAIN_FUNCTION mainCallback;
    private volatile Winsvc.HandlerEx handlerCallback;

    public JnaScmApi() {
        this(Advapi32.INSTANCE);
    }

    JnaScmApi(Advapi32 advapi32) {
        this.advapi32 = advapi32;
    }

    @Override
    public void runDispatcher(String serviceName, ServiceMain serviceMain) {
        // Anonymous classes rather than lambdas: JNA resolves the callback method through the class.
        Winsvc.SERVICE_MAIN_FUNCTION callback = new Winsvc.SERVICE_MAIN_FUNCTION() {
            @Override
            public void callback(int argc, Pointer argv) {
                String[] args = argc > 0 && argv != null ? argv.getWideStringArray(0, argc) : new String[0];
                serviceMain.serviceMain(args);
            }
        };
        Native.setCallbackThreadInitializer(callback,
                new CallbackThreadInitializer(false, false, "winproxy-service-main"));
        mainCallback = callback;
        Winsvc.SERVICE_TABLE_ENTRY entry = new Winsvc.SERVICE_TABLE_ENTRY();
        entry.lpServiceName = serviceName;
        entry.lpServiceProc = callback;
        Winsvc.SERVICE_TABLE_ENTRY[] table = (Winsvc.SERVICE_TABLE_ENTRY[]) entry.toArray(2);
        if (!advapi32.StartServiceCtrlDispatcher(table)) {
            throw failure("StartServiceCtrlDispatcher", serviceName);
        }
    }

    @Override
    public StatusHandle registerControlHandler(String serviceName, ControlHandler handler) {
        Winsvc.HandlerEx callback = new Winsvc.HandlerEx() {
            @Override
            public int callback(int control, int eventType, Pointer eventData, Pointer context) {
                return handler.control(control, eventType);
            }
        };
        Native.setCallbackThreadInitializer(callback,
                new CallbackThreadInitializer(true, false, "winproxy-service-control"));
        handlerCallback = callback;
        Winsvc.SERVICE_STATUS_HANDLE handle = advapi32.RegisterServiceCtrlHandlerEx(serviceName, callback, null);
        if (handle == null) {
            throw failure("RegisterServiceCtrlHandlerEx", serviceName);
        }
        return new NativeHandle(handle);
    }

    @Override
    public void setStatus(StatusHandle handle, ServiceStatus status) {
        Winsvc.SERVICE_STATUS report = new Winsvc.SERVICE_STATUS();
        report.dwServiceType = Win32Service.SERVICE_WIN32_OWN_PROCESS;
        report.dwCurrentState = status.state().win32();
        report.dwControlsAccepted = status.controlsAccepted();
        report.dwWin32ExitCode = status.win32ExitCode();
        report.dwServiceSpecificExitCode = status.serviceSpecificExitCode();
        report.dwCheckPoint = status.checkPoint();
        report.dwWaitHint = status.waitHintMillis();
        if (!advapi32.SetServiceStatus(((NativeHandle) handle).handle(), report)) {
            throw failure("SetServiceStatus", status.state().name());
        }
    }

    private WindowsServiceException failure(String operation, String subject) {
        int error = Native.getLastError();
        return new WindowsServiceException(operation, error,
                operation + "(" + subject + ") failed with Win32 error " + error);
    }

    private record NativeHandle(Winsvc.SERVICE_STATUS_HANDLE handle) implements StatusHandle {
    }
}
