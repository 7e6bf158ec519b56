package io.winproxy.agent.winsvc;

import com.sun.jna.Native;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinDef;

/** {@link ProcessPriorityApi} over jna-platform's {@link Kernel32}. Windows only. */
public final class JnaProcessPriorityApi implements ProcessPriorityApi {
    private final Kernel32 kernel32;

    public JnaProcessPriorityApi() {
        this(Kernel32.INSTANCE);
    }

    JnaProcessPriorityApi(Kernel32 kernel32) {
        this.kernel32 = kernel32;
    }

    @Override
    public int getPriorityClass() {
        WinDef.DWORD value = kernel32.GetPriorityClass(kernel32.GetCurrentProcess());
        if (value == null || value.intValue() == 0) {
            int error = Native.getLastError();
            throw new WindowsServiceException("GetPriorityClass", error,
                    "GetPriorityClass failed with Win32 error " + error);
        }
        return value.intValue();
    }

    @Override
    public void setPriorityClass(int value) {
        if (!kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), new WinDef.DWORD(value))) {
            int error = Native.getLastError();
            throw new WindowsServiceException("SetPriorityClass", error,
                    "SetPriorityClass(0x" + Integer.toHexString(value) + ") failed with Win32 error " + error);
        }
    }
}
