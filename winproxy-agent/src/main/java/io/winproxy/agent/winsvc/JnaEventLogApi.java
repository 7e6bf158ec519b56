package io.winproxy.agent.winsvc;

import com.sun.jna.Native;
import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinNT;

/** {@link EventLogApi} over jna-platform's {@link Advapi32} and {@link Kernel32}. Windows only. */
public final class JnaEventLogApi implements EventLogApi {

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
