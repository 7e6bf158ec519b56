package io.winproxy.agent.metrics;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Structure;
import com.sun.jna.platform.win32.BaseTSD.SIZE_T;
import com.sun.jna.platform.win32.WinNT.HANDLE;
import com.sun.jna.ptr.IntByReference;

/**
 * The raw {@code kernel32.dll} exports the Windows process metrics read, with their Win32 names (jna-platform maps
 * neither). A plain {@link Library}: 64-bit Windows has one calling convention. {@code K32GetProcessMemoryInfo} is
 * {@code psapi.dll}'s {@code GetProcessMemoryInfo} as kernel32 exports it since Windows 7.
 *
 * <p>No memory is returned that the caller must free; the pseudo handle of {@code GetCurrentProcess} needs no close.
 */
interface Win32Process extends Library {

    /** Loads kernel32; only on Windows. */
    static Win32Process load() {
        return Native.load("kernel32", Win32Process.class);
    }

    /** The pseudo handle of this process. */
    HANDLE GetCurrentProcess();

    /** Fills {@code counters} ({@code cb} set to its size); false on failure ({@code GetLastError}). */
    boolean K32GetProcessMemoryInfo(HANDLE process, ProcessMemoryCountersEx counters, int cb);

    /** The number of open handles of {@code process}; false on failure. */
    boolean GetProcessHandleCount(HANDLE process, IntByReference handleCount);

    /** {@code PROCESS_MEMORY_COUNTERS_EX}. */
    @Structure.FieldOrder({"cb", "PageFaultCount", "PeakWorkingSetSize", "WorkingSetSize", "QuotaPeakPagedPoolUsage",
            "QuotaPagedPoolUsage", "QuotaPeakNonPagedPoolUsage", "QuotaNonPagedPoolUsage", "PagefileUsage",
            "PeakPagefileUsage", "PrivateUsage"})
    final class ProcessMemoryCountersEx extends Structure {
        public int cb;
        public int PageFaultCount;
        public SIZE_T PeakWorkingSetSize;
        public SIZE_T WorkingSetSize;
        public SIZE_T QuotaPeakPagedPoolUsage;
        public SIZE_T QuotaPagedPoolUsage;
        public SIZE_T QuotaPeakNonPagedPoolUsage;
        public SIZE_T QuotaNonPagedPoolUsage;
        public SIZE_T PagefileUsage;
        public SIZE_T PeakPagefileUsage;
        public SIZE_T PrivateUsage;

        public ProcessMemoryCountersEx() {
            cb = size();
        }
    }
}
