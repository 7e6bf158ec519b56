package io.winproxy.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17.4/17.5: the state directory is created protected; bad or unprotected ones are refused in one line. */
class StateDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void anEmptyPathIsRefused() {
        assertThatThrownBy(() -> StateDirectory.prepareAndLock(Path.of("")))
                .isInstanceOf(InvalidStateDirectoryException.class).hasMessage("must not be empty");
    }

    @Test
    void aFileIsRefused() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThatThrownBy(() -> StateDirectory.prepare(file, new PosixDirectoryProtection()))
                .isInstanceOf(InvalidStateDirectoryException.class).hasMessage(file + " is not a directory");
    }

    @Test
    void aDirectoryThatCannotBeCreatedIsRefusedInOneLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        Path below = file.resolve("state");
        assertThatThrownBy(() -> StateDirectory.prepare(below, DirectoryProtection.forThisOs(tmp)))
                .isInstanceOf(InvalidStateDirectoryException.class)
                .hasMessageStartingWith("cannot create or check " + below + ": ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aMissingDirectoryIsCreatedOwnerOnlyOnPosix() throws Exception {
        assumeTrue(SecureFiles.isPosix(tmp));
        Path dir = tmp.resolve("a").resolve("state");
        StateDirectory.prepare(dir, new PosixDirectoryProtection());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    }

    @Test
    void anExistingDirectoryOthersMayWriteIsRefusedOnPosix() throws Exception {
        assumeTrue(SecureFiles.isPosix(tmp));
        Path dir = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> StateDirectory.prepare(dir, new PosixDirectoryProtection()))
                .isInstanceOf(InvalidStateDirectoryException.class)
                .hasMessageStartingWith(dir + " is writable by its group or others (mode rwxrwxrwx)");

        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(StateDirectory.prepare(dir, new PosixDirectoryProtection())).isEqualTo(dir);
    }
}
