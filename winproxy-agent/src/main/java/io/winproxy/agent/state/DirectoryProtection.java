package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** How the state directory is kept writable by administrators only, per operating system. */
public interface DirectoryProtection {

    /** Creates {@code dir} (its parents as usual) so that only administrators can write it. */
    void create(Path dir) throws IOException;

    /** Why the existing {@code dir} lets someone other than administrators write it, or empty when it does not. */
    Optional<String> problem(Path dir) throws IOException;

    /** SYSTEM + Administrators DACL on Windows, 0700 where POSIX modes exist, nothing elsewhere. */
    static DirectoryProtection forThisOs(Path dir) {
        return forThisOs(dir, true);
    }

    /**
     * As {@link #forThisOs(Path)}; with {@code realHns} false (the journal of an emulated host, which authorises
     * nothing on the node) a Windows directory is left with its inherited permissions, so that a non-elevated user
     * can run the emulator.
     */
    static DirectoryProtection forThisOs(Path dir, boolean realHns) {
        if (System.getProperty("os.name", "").startsWith("Windows")) {
            return realHns ? new WindowsDirectoryProtection(new JnaFileSecurity()) : NONE;
        }
        return SecureFiles.isPosix(dir) ? new PosixDirectoryProtection() : NONE;
    }

    /** For file systems with neither POSIX modes nor Windows ACLs. */
    DirectoryProtection NONE = new DirectoryProtection() {
        @Override
        public void create(Path dir) throws IOException {
            java.nio.file.Files.createDirectories(dir);
        }

        @Override
        public Optional<String> problem(Path dir) {
            return Optional.empty();
        }
    };
}
