package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/** POSIX: the directory is created 0700; an existing one that its group or others may write is refused. */
final class PosixDirectoryProtection implements DirectoryProtection {

    @Override
    public void create(Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        // the umask may have taken bits away, never added; set the mode exactly anyway
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }

    @Override
    public Optional<String> problem(Path dir) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir);
        if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            return Optional.of(dir + " is writable by its group or others (mode " + PosixFilePermissions.toString(mode)
                    + "); make it rwx------ (chmod 700) or give another directory");
        }
        return Optional.empty();
    }
}
