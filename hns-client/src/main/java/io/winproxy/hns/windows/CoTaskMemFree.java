package io.winproxy.hns.windows;

import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.Ole32;

/**
 * Releases a string that HCN or HNSCall allocated ({@code ole32.dll!CoTaskMemFree} on Windows). Injectable so the
 * native-contract tests can count frees in their stand-in library. Implementations must accept null (a no-op).
 */
@FunctionalInterface
public interface CoTaskMemFree {

    void free(Pointer memory);

    /**
     * {@code ole32.dll!CoTaskMemFree}. Loads ole32 now, so only on Windows.
     *
     * @throws LinkageError when ole32.dll cannot be loaded
     */
    static CoTaskMemFree ole32() {
        Ole32 ole32 = Ole32.INSTANCE;
        return ole32::CoTaskMemFree;
    }
}
