package io.winproxy.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.ArgumentCaptor;

/** The Windows protection over a mocked advapi32: what is asked of Win32, and how its answers are read. */
class WindowsDirectoryProtectionTest {
    private static final String USERS = "S-1-5-32-545";

    @TempDir
    Path tmp;

    private final SecurityApi advapi32 = mock(SecurityApi.class);
    private final JnaFileSecurity security = new JnaFileSecurity(advapi32);

    @Test
    void creatingSetsAdministratorsAsOwnerAndAProtectedSystemAndAdministratorsDacl() throws Exception {
        Path dir = tmp.resolve("winproxy");
        ArgumentCaptor<Pointer> owner = ArgumentCaptor.forClass(Pointer.class);
        ArgumentCaptor<Pointer> dacl = ArgumentCaptor.forClass(Pointer.class);
        when(advapi32.SetNamedSecurityInfo(eq(dir.toAbsolutePath().toString()), eq(1), eq(0x80000005),
                owner.capture(), isNull(), dacl.capture(), isNull())).thenReturn(0);

        new WindowsDirectoryProtection(security).create(dir);

        assertThat(dir).isDirectory();
        assertThat(SecurityBytes.sidString(owner.getValue().getByteArray(0, 16), 0))
                .isEqualTo(AclPolicy.ADMINISTRATORS);
        byte[] header = dacl.getValue().getByteArray(0, 8);
        assertThat(SecurityBytes.parseAcl(dacl.getValue().getByteArray(0, SecurityBytes.aclSize(header))))
                .isEqualTo(AclPolicy.protectedDacl());
    }

    @Test
    void aFailedSetIsReportedWithItsWin32ErrorAndLeavesNoDirectory() {
        Path dir = tmp.resolve("winproxy");
        when(advapi32.SetNamedSecurityInfo(any(), anyInt(), anyInt(), any(), any(), any(), any())).thenReturn(5);

        assertThatThrownBy(() -> new WindowsDirectoryProtection(security).create(dir))
                .isInstanceOf(IOException.class)
                .hasMessage("SetNamedSecurityInfo failed with Win32 error 5 (access denied: run as SYSTEM or an "
                        + "elevated administrator)");
        assertThat(dir).doesNotExist();
    }

    @Test
    void anExistingDirectoryIsJudgedFromTheOwnerAndDaclWin32ReturnsAndTheDescriptorIsFreed() throws Exception {
        Memory owner = bytes(SecurityBytes.sid(AclPolicy.ADMINISTRATORS));
        Memory dacl = bytes(SecurityBytes.acl(List.of(new Ace(Ace.ACCESS_ALLOWED, 3, 0x1F01FF, AclPolicy.SYSTEM),
                new Ace(Ace.ACCESS_ALLOWED, 0, 0x6, USERS))));
        Memory descriptor = new Memory(8);
        when(advapi32.GetNamedSecurityInfo(eq(tmp.toAbsolutePath().toString()), eq(1), eq(5), any(), isNull(),
                any(), isNull(), any())).thenAnswer(call -> {
                    call.<PointerByReference>getArgument(3).setValue(owner);
                    call.<PointerByReference>getArgument(5).setValue(dacl);
                    call.<PointerByReference>getArgument(7).setValue(descriptor);
                    return 0;
                });

        Optional<String> problem = new WindowsDirectoryProtection(security).problem(tmp);

        assertThat(problem).hasValueSatisfying(reason -> assertThat(reason)
                .startsWith(tmp + " lets " + USERS + " write (access mask 0x6)"));
        verify(advapi32).LocalFree(descriptor);
    }

    @Test
    void aNullDaclFromWin32IsEveryoneMayWrite() throws Exception {
        Memory owner = bytes(SecurityBytes.sid(AclPolicy.SYSTEM));
        when(advapi32.GetNamedSecurityInfo(any(), anyInt(), anyInt(), any(), any(), any(), any(), any()))
                .thenAnswer(call -> {
                    call.<PointerByReference>getArgument(3).setValue(owner);
                    call.<PointerByReference>getArgument(7).setValue(new Memory(8));
                    return 0;
                });
        assertThat(security.read(tmp)).isEqualTo(new FileSecurity.Descriptor(AclPolicy.SYSTEM, Optional.empty()));
    }

    @Test
    void aFailedReadIsAnIoErrorWithTheWin32Code() {
        when(advapi32.GetNamedSecurityInfo(any(), anyInt(), anyInt(), any(), any(), any(), any(), any()))
                .thenReturn(2);
        assertThatThrownBy(() -> security.read(tmp)).isInstanceOf(IOException.class)
                .hasMessage("GetNamedSecurityInfo failed with Win32 error 2");
    }

    @Test
    void aDirectoryWrittenByOthersWhileBeingCreatedIsRefused() throws Exception {
        Path dir = tmp.resolve("winproxy");
        FileSecurity racing = mock(FileSecurity.class);
        doThrow(new AssertionError("unused")).when(racing).read(any());
        org.mockito.Mockito.doAnswer(call -> {
            Files.writeString(dir.resolve("ownership.log"), "planted");
            return null;
        }).when(racing).setProtected(eq(dir), eq(AclPolicy.ADMINISTRATORS), eq(AclPolicy.protectedDacl()));

        assertThatThrownBy(() -> new WindowsDirectoryProtection(racing).create(dir))
                .isInstanceOf(IOException.class).hasMessageContaining("written by someone else");
    }

    private static Memory bytes(byte[] content) {
        Memory memory = new Memory(content.length);
        memory.write(0, content, 0, content.length);
        return memory;
    }
}
