package io.winproxy.agent.winsvc;

import com.sun.jna.Native;
import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Advapi32Util;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinNT;
import com.sun.jna.platform.win32.WinReg;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@link EventLogApi} over jna-platform's {@link Advapi32} and {@link Kernel32}. Windows only. */
public final class JnaEventLogApi implements EventLogApi {
    private static final String APPLICATION_LOG = "SYSTEM\\CurrentControlSet\\Services\\EventLog\\Application";
    /** The message file EventLog.CreateEventSource registers: one message, "%1", for every event ID. */
    private static final String MESSAGE_FILE = "Microsoft.NET\\Framework64\\v4.0.30319\\EventLogMessages.dll";
    /** EVENTLOG_ERROR_TYPE | EVENTLOG_WARNING_TYPE | EVENTLOG_INFORMATION_TYPE. */
    private static final int TYPES_SUPPORTED = 7;

    @Override
    public boolean registerSource(String source) {
        String key = APPLICATION_LOG + "\\" + source;
        if (Advapi32Util.registryKeyExists(WinReg.HKEY_LOCAL_MACHINE, key)) {
            return false;
        }
        String systemRoot = System.getenv().getOrDefault("SystemRoot", "C:\\Windows");
        if (!Files.isRegularFile(Path.of(systemRoot, MESSAGE_FILE))) {
            return false;
        }
        Advapi32Util.registryCreateKey(WinReg.HKEY_LOCAL_MACHINE, APPLICATION_LOG, source);
        Advapi32Util.registrySetExpandableStringValue(WinReg.HKEY_LOCAL_MACHINE, key, "EventMessageFile",
                "%SystemRoot%\\" + MESSAGE_FILE);
        Advapi32Util.registrySetIntValue(WinReg.HKEY_LOCAL_MACHINE, key, "TypesSupported", TYPES_SUPPORTED);
        return true;
    }

    @Override
    public void report(String source, int type, int eventId, String message) {
        WinNT.HANDLE log = Advapi32.INSTANCE.RegisterEventSource(null, source);
        if (log == null) {
            int error = Native.getLastError();
            throw new WindowsServiceException("RegisterEventSource", error,
                    "RegisterEventSource(" + source + ") failed with Win32 error " + error);
        }
        try {
            if (!Advapi32.INSTANCE.ReportEvent(log, type, 0, eventId, null, 1, 0, new String[] {message}, null)) {
                int error = Native.getLastError();
                throw new WindowsServiceException("ReportEvent", error,
                        "ReportEvent(" + source + ") failed with Win32 error " + error);
            }
        } finally {
            Advapi32.INSTANCE.DeregisterEventSource(log);
        }
    }

    @Override
    public boolean hasConsole() {
        return Kernel32.INSTANCE.GetConsoleWindow() != null;
    }
}
