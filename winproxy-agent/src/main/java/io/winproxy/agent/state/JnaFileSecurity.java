package io.winproxy.agent.state;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.WinNT;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@link FileSecurity} through advapi32 ({@code GetNamedSecurityInfoW}, {@code SetNamedSecurityInfoW}). The
 * security descriptor returned by {@code GetNamedSecurityInfo} is freed with {@code LocalFree} in {@code finally};
 * binary SIDs and ACLs are built and parsed by {@link SecurityBytes}.
 */
final class JnaFileSecurity implements FileSecurity {
    static final int SE_FILE_OBJECT = 1;
    static final int OWNER_AND_DACL = WinNT.OWNER_SECURITY_INFORMATION | WinNT.DACL_SECURITY_INFORMATION;
    static final int OWNER_AND_PROTECTED_DACL = OWNER_AND_DACL | WinNT.PROTECTED_DACL_SECURITY_INFORMATION;

    private final SecurityApi advapi32;

    JnaFileSecurity() {
        this(SecurityApi.forWindows());
    }

    JnaFileSecurity(SecurityApi api) {
        this.advapi32 = api;
    }

    @Override
    public Descriptor read(Path path) throws IOException {
        PointerByReference owner = new PointerByReference();
        PointerByReference dacl = new PointerByReference();
        PointerByReference descriptor = new PointerByReference();
        int rc = advapi32.GetNamedSecurityInfo(path.toAbsolutePath().toString(), SE_FILE_OBJECT, OWNER_AND_DACL,
                owner, null, dacl, null, descriptor);
        if (rc != 0) {
            throw new IOException("GetNamedSecurityInfo failed with Win32 error " + rc);
        }
        try {
            Pointer sid = owner.getValue();
            byte[] ownerBytes = sid.getByteArray(0, SecurityBytes.sidLength(sid.getByte(1) & 0xff));
            Pointer acl = dacl.getValue();
            Optional<List<Ace>> aces = acl == null ? Optional.empty() : Optional.of(SecurityBytes.parseAcl(
                    acl.getByteArray(0, SecurityBytes.aclSize(acl.getByteArray(0, 8)))));
            return new Descriptor(SecurityBytes.sidString(ownerBytes, 0), aces);
        } finally {
            advapi32.LocalFree(descriptor.getValue());
        }
    }

    @Override
    public void setProtected(Path path, String ownerSid, List<Ace> aces) throws IOException {
        Memory owner = copy(SecurityBytes.sid(ownerSid));
        Memory acl = copy(SecurityBytes.acl(aces));
        int rc = advapi32.SetNamedSecurityInfo(path.toAbsolutePath().toString(), SE_FILE_OBJECT,
                OWNER_AND_PROTECTED_DACL, owner, null, acl, null);
        if (rc != 0) {
            throw new IOException("SetNamedSecurityInfo failed with Win32 error " + rc
                    + (rc == 5 ? " (access denied: run as SYSTEM or an elevated administrator)" : ""));
        }
    }

    private static Memory copy(byte[] bytes) {
        Memory memory = new Memory(bytes.length);
        memory.write(0, bytes, 0, bytes.length);
        return memory;
    }
}
