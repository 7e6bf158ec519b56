package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The state directory: winproxy's trust anchor (its ownership journal authorises deletions in HNS), so it is
 * created writable by administrators only and an existing one that others may write is refused. Used before
 * anything reads or writes the journal or HNS.
 */
public final class StateDirectory {
    private StateDirectory() {
    }

    /**
     * Checks {@code dir}, creating it protected when missing.
     *
     * @return {@code dir}
     * @throws InvalidStateDirectoryException with a one-line reason when it is empty, not a directory, cannot be
     *                                        created or lets non-administrators write it
     */
    public static Path prepare(Path dir, DirectoryProtection protection) {
        Objects.requireNonNull(protection, "protection");
        requireNonEmpty(dir);
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.exists(dir)) {
                protection.create(dir);
                return dir;
            }
            if (!Files.isDirectory(dir)) {
                throw new InvalidStateDirectoryException(dir + " is not a directory");
            }
            Optional<String> problem = protection.problem(dir);
            if (problem.isPresent()) {
                throw new InvalidStateDirectoryException(problem.get());
            }
            return dir;
        } catch (IOException e) {
            throw new InvalidStateDirectoryException("cannot create or check " + dir + ": " + describe(e));
        }
    }

    /**
     * Prepares {@code dir} with this operating system's protection and takes its instance lock.
     *
     * @throws InvalidStateDirectoryException see {@link #prepare}
     * @throws InstanceLockedException        when another winproxy holds it
     */
    public static InstanceLock prepareAndLock(Path dir) {
        return prepareAndLock(dir, true);
    }

    /**
     * As {@link #prepareAndLock(Path)}; {@code realHns} false (an emulated host) skips the Windows DACL, which only
     * matters when the journal can make the agent delete real HNS policies.
     */
    public static InstanceLock prepareAndLock(Path dir, boolean realHns) {
        return prepareAndLock(dir, realHns, "");
    }

    /** As {@link #prepareAndLock(Path, boolean)}, naming the holder's role in the lock file. */
    public static InstanceLock prepareAndLock(Path dir, boolean realHns, String role) {
        requireNonEmpty(dir);
        return InstanceLock.acquire(prepare(dir, DirectoryProtection.forThisOs(dir, realHns)), role);
    }

    /** @throws InvalidStateDirectoryException when {@code dir} is null or empty */
    public static void requireNonEmpty(Path dir) {
        if (dir == null || dir.toString().isBlank()) {
            throw new InvalidStateDirectoryException("must not be empty");
        }
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        String kind = e.getClass().getSimpleName().replace("Exception", "");
        return message == null ? kind : kind + " " + message;
    }
}
