package io.winproxy.agent.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The real advapi32 (run elevated): winproxy's DACL is applied, read back as protected, and a plain one refused. */
@EnabledOnOs(OS.WINDOWS)
class StateDirectoryWindowsIT {

    @TempDir
    Path tmp;

    @Test
    void aCreatedStateDirectoryIsOwnedByAdministratorsAndOnlyTheyAndSystemMayWriteIt() throws Exception {
        Path dir = tmp.resolve("winproxy");
        JnaFileSecurity security = new JnaFileSecurity();

        StateDirectory.prepare(dir, new WindowsDirectoryProtection(security));

        FileSecurity.Descriptor descriptor = security.read(dir);
        assertThat(descriptor.ownerSid()).isEqualTo(AclPolicy.ADMINISTRATORS);
        assertThat(descriptor.dacl()).contains(AclPolicy.protectedDacl());
        assertThat(new WindowsDirectoryProtection(security).problem(dir)).isEmpty();
    }

    @Test
    void aDirectoryWithTheTempFoldersInheritedAclIsJudgedByItsEntries() throws Exception {
        Path plain = Files.createDirectory(tmp.resolve("plain"));
        JnaFileSecurity security = new JnaFileSecurity();
        FileSecurity.Descriptor descriptor = security.read(plain);
        assertThat(new WindowsDirectoryProtection(security).problem(plain))
                .isEqualTo(AclPolicy.problem(plain.toString(), descriptor.ownerSid(), descriptor.dacl()));
        assertThat(descriptor.dacl()).isNotEqualTo(Optional.empty());
    }
}
