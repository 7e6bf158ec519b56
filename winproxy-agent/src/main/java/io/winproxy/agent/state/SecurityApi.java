package io.winproxy.agent.state;

import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.ptr.PointerByReference;

/**
 * The raw Win32 calls of {@link JnaFileSecurity}, with their Win32 names, so that tests can mock them (jna-platform's
 * {@code Advapi32} cannot even be loaded off Windows). {@link #forWindows()} binds them to advapi32 and kernel32.
 */
interface SecurityApi {

    /** {@code GetNamedSecurityInfoW}; returns a Win32 error code, 0 on success. */
    int GetNamedSecurityInfo(String objectName, int objectType, int securityInfo, PointerByReference owner,
                             PointerByReference group, PointerByReference dacl, PointerByReference sacl,
                             PointerByReference securityDescriptor);

    /** {@code SetNamedSecurityInfoW}; returns a Win32 error code, 0 on success. */
    int SetNamedSecurityInfo(String objectName, int objectType, int securityInfo, Pointer owner, Pointer group,
                             Pointer dacl, Pointer sacl);

    /** {@code LocalFree}, for the descriptor {@code GetNamedSecurityInfo} allocated. */
    void LocalFree(Pointer memory);

    /** The real calls; loads advapi32 and kernel32 on first use. */
    static SecurityApi forWindows() {
        return new SecurityApi() {
            @Override
            public int GetNamedSecurityInfo(String objectName, int objectType, int securityInfo,
                                            PointerByReference owner, PointerByReference group,
                                            PointerByReference dacl, PointerByReference sacl,
                                            PointerByReference securityDescriptor) {
                return Advapi32.INSTANCE.GetNamedSecurityInfo(objectName, objectType, securityInfo, owner, group,
                        dacl, sacl, securityDescriptor);
            }

            @Override
            public int SetNamedSecurityInfo(String objectName, int objectType, int securityInfo, Pointer owner,
                                            Pointer group, Pointer dacl, Pointer sacl) {
                return Advapi32.INSTANCE.SetNamedSecurityInfo(objectName, objectType, securityInfo, owner, group,
                        dacl, sacl);
            }

            @Override
            public void LocalFree(Pointer memory) {
                Kernel32.INSTANCE.LocalFree(memory);
            }
        };
    }
}
