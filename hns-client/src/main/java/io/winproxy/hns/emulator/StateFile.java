package io.winproxy.hns.emulator;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The emulator's optional state file, shared by separate processes (a running demo and the {@code hns list}
 * command) so that they see one emulated host. Every access holds an exclusive lock on a sibling
 * {@code <file>.lock}; writes go to a temporary file in the same directory that then replaces the state file
 * atomically, so a reader never sees a half-written document. Within one JVM, two emulators on the same file wait
 * for each other (the JVM refuses overlapping locks, so the lock is retried).
 */
final class StateFile {
    private static final long LOCK_TIMEOUT_MILLIS = 30_000;

    private final Path path;
    private final Path lockPath;
    private final ObjectMapper mapper = HcnJson.newMapper().enable(SerializationFeature.INDENT_OUTPUT);

    StateFile(Path path) {
        this.path = path.toAbsolutePath();
        this.lockPath = this.path.resolveSibling(this.path.getFileName() + ".lock");
    }

    Path path() {
        return path;
    }

    /** Work done while the lock is held. */
    interface Locked<T> {
        T run() throws IOException;
    }

    /** Runs {@code work} holding the exclusive file lock. */
    <T> T locked(Locked<T> work) {
        try {
            Path dir = path.getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            try (FileChannel ch = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock lock = acquire(ch)) {
                return work.run();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("emulated HNS state file " + path + ": " + e.getMessage(), e);
        }
    }

    /** The document in the file, or empty when there is no file yet. Call while {@link #locked} is held. */
    Optional<EmulatorStateDocument> read() throws IOException {
        if (!Files.exists(path) || Files.size(path) == 0) {
            return Optional.empty();
        }
        EmulatorStateDocument doc;
        try {
            doc = mapper.readValue(path.toFile(), EmulatorStateDocument.class);
        } catch (JacksonException e) {
            throw new IOException("not an emulated HNS state document: " + e.getOriginalMessage(), e);
        }
        if (doc.hnsVersion() != null && !doc.hnsVersion().isBlank()) {
            try {
                HnsVersion.parse(doc.hnsVersion());
            } catch (IllegalArgumentException e) {
                throw new IOException("HnsVersion: " + e.getMessage(), e);
            }
        }
        return Optional.of(doc);
    }

    /** Writes the document atomically. Call while {@link #locked} is held. */
    void write(EmulatorStateDocument doc) throws IOException {
        Path tmp = Files.createTempFile(path.getParent(), path.getFileName().toString(), ".tmp");
        try {
            mapper.writeValue(tmp.toFile(), doc);
            try {
                Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static FileLock acquire(FileChannel ch) throws IOException {
        long deadline = System.currentTimeMillis() + LOCK_TIMEOUT_MILLIS;
        while (true) {
            try {
                return ch.lock();
            } catch (OverlappingFileLockException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("timed out waiting for the state file lock", e);
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for the state file lock", ie);
                }
            }
        }
    }
}
