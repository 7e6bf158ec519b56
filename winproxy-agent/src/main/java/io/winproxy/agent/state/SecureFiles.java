package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * File modes of the state directory's contents. On POSIX file systems files are 0600 and directories 0700; on
 * Windows nothing is done per file, because every file inherits the directory's protected SYSTEM + Administrators
 * DACL ({@link WindowsDirectoryProtection}).
 */
public final class SecureFiles {
    private SecureFiles() {
    }

    /** Makes {@code file} readable and writable by its owner only (0600) where POSIX modes exist. */
    public static void restrictToOwner(Path file) throws IOException {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) != null) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }

    /**
     * Moves a fully written temporary file over {@code target} atomically where the file system can, else by a plain
     * replace (a reader then sees the old or the new file, never a torn one, on the file systems that matter).
     */
    public static void replace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Whether POSIX modes apply to {@code path}'s file system. */
    static boolean isPosix(Path path) {
        Path existing = path.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return existing != null && Files.getFileAttributeView(existing, PosixFileAttributeView.class) != null;
    }
}
