package io.winproxy.installer;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.WString;
import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.W32Service;
import com.sun.jna.platform.win32.WinNT;
import com.sun.jna.platform.win32.Winsvc;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.win32.StdCallLibrary;
import com.sun.jna.win32.W32APIOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link ServiceConfigApi} over jna-platform's {@link Advapi32} and {@link W32Service}. Windows only. */
public final class JnaServiceConfigApi implements ServiceConfigApi {
    private final Advapi32 advapi32;

    public JnaServiceConfigApi() {
        this(Advapi32.INSTANCE);
    }

    JnaServiceConfigApi(Advapi32 advapi32) {
        this.advapi32 = advapi32;
    }

    @Override
    public Handle openManager() {
        Winsvc.SC_HANDLE handle = advapi32.OpenSCManager(null, null, Winsvc.SC_MANAGER_ALL_ACCESS);
        if (handle == null) {
            throw failure("OpenSCManager", "the service control manager");
        }
        return new NativeHandle(handle);
    }

    @Override
    public Optional<Handle> openService(Handle manager, String name) {
        Winsvc.SC_HANDLE handle = advapi32.OpenService(raw(manager), name, Winsvc.SERVICE_ALL_ACCESS);
        if (handle == null) {
            int error = Native.getLastError();
            if (error == RegistrationException.SERVICE_DOES_NOT_EXIST) {
                return Optional.empty();
            }
            throw failure("OpenService", name, error);
        }
        return Optional.of(new NativeHandle(handle));
    }

    @Override
    public Handle createService(Handle manager, String name, String displayName, int startType, String commandLine,
            List<String> dependencies) {
        // A double-null-terminated list: JNA adds the final terminator to the string.
        String dependencyList = dependencies.isEmpty() ? null : String.join("\0", dependencies) + "\0";
        Winsvc.SC_HANDLE handle = advapi32.CreateService(raw(manager), name, displayName,
                Winsvc.SERVICE_ALL_ACCESS, WinNT.SERVICE_WIN32_OWN_PROCESS, startType, WinNT.SERVICE_ERROR_NORMAL,
                commandLine, null, null, dependencyList, null, null);
        if (handle == null) {
            throw failure("CreateService", name);
        }
        return new NativeHandle(handle);
    }

    @Override
    public void setDescription(Handle service, String description) {
        Winsvc.SERVICE_DESCRIPTION info = new Winsvc.SERVICE_DESCRIPTION();
        info.lpDescription = description;
        change(service, Winsvc.SERVICE_CONFIG_DESCRIPTION, info, "description");
    }

    @Override
    public void setDelayedAutoStart(Handle service, boolean delayed) {
        DelayedAutoStartInfo info = new DelayedAutoStartInfo();
        info.fDelayedAutostart = delayed ? 1 : 0;
        change(service, Winsvc.SERVICE_CONFIG_DELAYED_AUTO_START_INFO, info, "delayed auto-start");
    }

    @Override
    public void setFailureActions(Handle service, List<Integer> restartDelaysMillis, int resetPeriodSeconds) {
        List<Winsvc.SC_ACTION> actions = new ArrayList<>();
        for (int delay : restartDelaysMillis) {
            Winsvc.SC_ACTION action = new Winsvc.SC_ACTION();
            action.type = Winsvc.SC_ACTION_RESTART;
            action.delay = delay;
            actions.add(action);
        }
        try {
            // Not closed: the handle stays ours and is closed through close(Handle).
            new W32Service(raw(service)).setFailureActions(actions, resetPeriodSeconds, null, null);
        } catch (RuntimeException e) {
            throw new RegistrationException("ChangeServiceConfig2(failure actions) failed: " + e.getMessage(),
                    Native.getLastError());
        }
    }

    @Override
    public void setFailureActionsOnNonCrashFailures(Handle service, boolean enabled) {
        Winsvc.SERVICE_FAILURE_ACTIONS_FLAG info = new Winsvc.SERVICE_FAILURE_ACTIONS_FLAG();
        info.fFailureActionsOnNonCrashFailures = enabled ? 1 : 0;
        change(service, Winsvc.SERVICE_CONFIG_FAILURE_ACTIONS_FLAG, info, "failure-actions flag");
    }

    @Override
    public StoredSettings query(Handle service) {
        Memory actionsBuffer = queryConfig2(service, Winsvc.SERVICE_CONFIG_FAILURE_ACTIONS, "failure actions");
        Winsvc.SERVICE_FAILURE_ACTIONS actions = new Winsvc.SERVICE_FAILURE_ACTIONS(actionsBuffer);
        List<Integer> delays = new ArrayList<>();
        if (actions.cActions > 0 && actions.lpsaActions != null) {
            for (Structure s : actions.lpsaActions.toArray(actions.cActions)) {
                Winsvc.SC_ACTION action = (Winsvc.SC_ACTION) s;
                delays.add(action.type == Winsvc.SC_ACTION_RESTART ? action.delay : -1);
            }
        }
        boolean flag = queryConfig2(service, Winsvc.SERVICE_CONFIG_FAILURE_ACTIONS_FLAG, "failure-actions flag")
                .getInt(0) != 0;
        boolean delayed = queryConfig2(service, Winsvc.SERVICE_CONFIG_DELAYED_AUTO_START_INFO, "delayed auto-start")
                .getInt(0) != 0;
        return new StoredSettings(delays, actions.dwResetPeriod, flag, delayed);
    }

    /**
     * {@code QueryServiceConfig2W} into a buffer that outlives the returned structure's pointers (they point into
     * it). 8 KiB holds the failure actions this installer writes; a larger configuration fails with
     * {@code ERROR_INSUFFICIENT_BUFFER} rather than being read short.
     */
    private Memory queryConfig2(Handle service, int level, String what) {
        Memory buffer = new Memory(8192);
        buffer.clear();
        IntByReference needed = new IntByReference();
        if (!advapi32.QueryServiceConfig2(raw(service), level, buffer, (int) buffer.size(), needed)) {
            throw failure("QueryServiceConfig2", what);
        }
        return buffer;
    }

    @Override
    public ServiceConfig queryConfig(Handle service) {
        IntByReference needed = new IntByReference();
        ServiceConfigCalls.INSTANCE.QueryServiceConfigW(raw(service), null, 0, needed);
        if (needed.getValue() <= 0) {
            throw failure("QueryServiceConfig", "service");
        }
        Memory buffer = new Memory(needed.getValue());
        buffer.clear();
        if (!ServiceConfigCalls.INSTANCE.QueryServiceConfigW(raw(service), buffer, (int) buffer.size(), needed)) {
            throw failure("QueryServiceConfig", "service");
        }
        QueryServiceConfig config = new QueryServiceConfig(buffer);
        List<String> dependencies = new ArrayList<>();
        if (config.lpDependencies != null) {
            // A double-null-terminated list of UTF-16 strings.
            for (long offset = 0;; ) {
                String dependency = config.lpDependencies.getWideString(offset);
                if (dependency.isEmpty()) {
                    break;
                }
                dependencies.add(dependency);
                offset += 2L * (dependency.length() + 1);
            }
        }
        return new ServiceConfig(wide(config.lpBinaryPathName), config.dwStartType, dependencies,
                wide(config.lpServiceStartName), wide(config.lpDisplayName));
    }

    private static String wide(Pointer pointer) {
        return pointer == null ? "" : pointer.getWideString(0);
    }

    @Override
    public void setBinaryPath(Handle service, String binaryPath) {
        if (!ServiceConfigCalls.INSTANCE.ChangeServiceConfigW(raw(service), SERVICE_NO_CHANGE, SERVICE_NO_CHANGE,
                SERVICE_NO_CHANGE, new WString(binaryPath), null, null, null, null, null, null)) {
            throw failure("ChangeServiceConfig", "binary path");
        }
    }

    @Override
    public boolean isStopped(Handle service) {
        Winsvc.SERVICE_STATUS status = new Winsvc.SERVICE_STATUS();
        if (!advapi32.QueryServiceStatus(raw(service), status)) {
            throw failure("QueryServiceStatus", "service");
        }
        return status.dwCurrentState == Winsvc.SERVICE_STOPPED;
    }

    @Override
    public void delete(Handle service) {
        if (!advapi32.DeleteService(raw(service))) {
            throw failure("DeleteService", "service");
        }
    }

    @Override
    public void close(Handle handle) {
        advapi32.CloseServiceHandle(raw(handle));
    }

    private void change(Handle service, int level, Winsvc.ChangeServiceConfig2Info info, String what) {
        if (!advapi32.ChangeServiceConfig2(raw(service), level, info)) {
            throw failure("ChangeServiceConfig2", what);
        }
    }

    private static Winsvc.SC_HANDLE raw(Handle handle) {
        return ((NativeHandle) handle).handle();
    }

    private static RegistrationException failure(String operation, String subject) {
        return failure(operation, subject, Native.getLastError());
    }

    private static RegistrationException failure(String operation, String subject, int error) {
        String hint = error == RegistrationException.ACCESS_DENIED ? " (run elevated, as Administrator)" : "";
        return new RegistrationException(operation + "(" + subject + ") failed with Win32 error " + error + hint,
                error);
    }

    private record NativeHandle(Winsvc.SC_HANDLE handle) implements Handle {
    }

    private static final int SERVICE_NO_CHANGE = 0xFFFFFFFF;

    /** The two advapi32 calls jna-platform does not bind. */
    interface ServiceConfigCalls extends StdCallLibrary {
        ServiceConfigCalls INSTANCE = Native.load("Advapi32", ServiceConfigCalls.class, W32APIOptions.UNICODE_OPTIONS);

        boolean QueryServiceConfigW(Winsvc.SC_HANDLE service, Pointer config, int size, IntByReference needed);

        boolean ChangeServiceConfigW(Winsvc.SC_HANDLE service, int serviceType, int startType, int errorControl,
                WString binaryPath, WString loadOrderGroup, IntByReference tagId, WString dependencies,
                WString account, WString password, WString displayName);
    }

    /** {@code QUERY_SERVICE_CONFIGW}, read from the buffer QueryServiceConfigW filled. */
    @Structure.FieldOrder({"dwServiceType", "dwStartType", "dwErrorControl", "lpBinaryPathName", "lpLoadOrderGroup",
            "dwTagId", "lpDependencies", "lpServiceStartName", "lpDisplayName"})
    public static final class QueryServiceConfig extends Structure {
        public int dwServiceType;
        public int dwStartType;
        public int dwErrorControl;
        public Pointer lpBinaryPathName;
        public Pointer lpLoadOrderGroup;
        public int dwTagId;
        public Pointer lpDependencies;
        public Pointer lpServiceStartName;
        public Pointer lpDisplayName;

        public QueryServiceConfig() {
        }

        QueryServiceConfig(Pointer memory) {
            super(memory);
            read();
        }
    }

    /** {@code SERVICE_DELAYED_AUTO_START_INFO}, which jna-platform does not define. */
    @Structure.FieldOrder({"fDelayedAutostart"})
    public static final class DelayedAutoStartInfo extends Winsvc.ChangeServiceConfig2Info {
        public int fDelayedAutostart;
    }
}
