package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Windows: the state directory is owned by Administrators with a protected DACL of SYSTEM and Administrators full
 * control (files inherit it); an existing directory is checked by {@link AclPolicy}.
 */
final class WindowsDirectoryProtection implements DirectoryProtection {
    private final FileSecurity security;

    WindowsDirectoryProtection(FileSecurity security) {
        this.security = security;
    }

    @Override
    public void create(Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.createDirectory(dir);
        try {
            security.setProtected(dir, AclPolicy.ADMINISTRATORS, AclPolicy.protectedDacl());
        } catch (IOException e) {
            Files.deleteIfExists(dir);
            throw e;
        }
        // Between createDirectory and the new DACL the parent's inherited ACL applied: anything created inside in
        // that moment was not created by winproxy.
        try (Stream<Path> entries = Files.list(dir)) {
            if (entries.findAny().isPresent()) {
                throw new IOException(dir + " was written by someone else while it was being created");
            }
        }
    }

    @Override
    public Optional<String> problem(Path dir) throws IOException {
        FileSecurity.Descriptor descriptor = security.read(dir);
        return AclPolicy.problem(dir.toString(), descriptor.ownerSid(), descriptor.dacl());
    }
}
