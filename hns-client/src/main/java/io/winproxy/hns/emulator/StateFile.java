package io.winproxy.hns.emulator;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The emulator's optional state file, shared by separate processes (a running demo and the {@code hns list}
 * command) so that they see one emulated host.
 *
 * <p>Two files hold the host: the <b>snapshot</b> {@code FILE}, an {@link EmulatorStateDocument} (the emulated HNS
 * version and every object as HCN v2 documents, indented JSON), and the <b>change log</b> {@code FILE.log}, JSON
 * lines: a header {@code {"Format":"winproxy-hns-emulator-changes","Generation":N}}, then one line per operation that
 * changed something, {@code {"Changes":[{"Op":"PutLoadBalancer","LoadBalancer":{...}}, {"Op":"RemoveEndpoint",
 * "ID":"..."}, {"Op":"SetVersion","HnsVersion":"15.4"}, ...]}}. The host is the snapshot with the log's changes
 * applied in order (each change sets an absolute value, so replaying is idempotent).
 *
 * <p>A write appends one line to the log; it never rewrites the whole host. When the log grows larger than the
 * snapshot (and than {@code compactMinBytes}), the writer <b>compacts</b>: it writes a new snapshot (to a temporary
 * file that atomically replaces {@code FILE}) and then replaces the log with a header of the next generation. A process
 * that has loaded the host keeps its position in the log and, on each operation, reads only the lines appended since;
 * a new generation (or a replaced snapshot) tells it another process compacted, and it reloads both files. A last
 * line without its newline (a writer died mid-append) is ignored, and cut off by the next append.
 *
 * <p>Every access holds an exclusive lock on a sibling {@code FILE.lock}. Within one JVM, two emulators on the same
 * file wait for each other (the JVM refuses overlapping locks, so the lock is retried). Not thread-safe by itself:
 * {@link HnsEmulator} serializes its calls.
 *
 * <p>Why this class is long (~440 lines): the lock, the snapshot, the log's generation and position, compaction
 * and the torn-last-line recovery depend on each other's invariants (a position is only valid within a generation,
 * a compaction must replace both files under the lock), so they are kept in one class.
 */
final class StateFile {
    static final long DEFAULT_COMPACT_MIN_BYTES = 1L << 20;
    static final String LOG_FORMAT = "winproxy-hns-emulator-changes";
    private static final long LOCK_TIMEOUT_MILLIS = 30_000;
    private static final int READ_CHUNK = 1 << 16;

    private final Path path;
    private final Path lockPath;
    private final Path logPath;
    private final long compactMinBytes;
    private final ObjectMapper indented = HcnJson.newMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final ObjectMapper lines = HcnJson.newMapper();

    /** Whether the store holds the snapshot this process last saw, with the log applied up to {@link #logEnd}. */
    private boolean loaded;
    private Stamp snapshotStamp;
    /** The generation of the log applied; -1 when there was no log. */
    private long logGeneration = -1;
    /** Offset just after the last complete log line applied (or after the header). */
    private long logEnd;
    /** The highest log generation this process has seen, so that a recreated log never reuses one. */
    private long highestGeneration;
    /** How often the whole snapshot was read (the first time, and after another process compacted). */
    private int fullLoads;

    /** What identifies one version of the snapshot file (it is only ever replaced, never written in place). */
    private record Stamp(Object fileKey, long size, FileTime modified) {
    }

    /** The first line of the change log. */
    record LogHeader(@JsonProperty("Format") String format, @JsonProperty("Generation") long generation) {
    }

    /** One line of the change log: the changes of one operation. */
    record LogEntry(@JsonProperty("Changes") List<StoreChange> changes) {
        LogEntry {
            changes = changes == null ? List.of() : List.copyOf(changes);
        }
    }

    StateFile(Path path) {
        this(path, DEFAULT_COMPACT_MIN_BYTES);
    }

    StateFile(Path path, long compactMinBytes) {
        this.path = path.toAbsolutePath();
        this.lockPath = this.path.resolveSibling(this.path.getFileName() + ".lock");
        this.logPath = this.path.resolveSibling(this.path.getFileName() + ".log");
        this.compactMinBytes = compactMinBytes;
    }

    Path path() {
        return path;
    }

    Path logPath() {
        return logPath;
    }

    /** How often this process read the whole snapshot (not just the log's new lines). */
    int fullLoads() {
        return fullLoads;
    }

    /** The generation of the change log last seen (-1 before there is a log). */
    long generation() {
        return logGeneration;
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

    /**
     * Brings {@code store} up to date with the files: the first time, or after another process compacted, the
     * snapshot plus the whole log; otherwise only the log lines appended since the last call. Without a snapshot
     * file the store is left as it is. Call while {@link #locked} is held.
     */
    void refresh(EmulatorStore store) throws IOException {
        boolean ok = false;
        try {
            Stamp snapshot = stamp(path);
            if (snapshot == null) {
                loaded = false;
                ok = true;
                return;
            }
            try (FileChannel log = openLog()) {
                long[] header = log == null ? new long[] {-1, 0} : readHeader(log);
                boolean sameLog = header[0] == logGeneration && log != null && log.size() >= logEnd;
                if (!loaded || !snapshot.equals(snapshotStamp) || !(sameLog || (log == null && logGeneration < 0))) {
                    readSnapshot().ifPresent(store::load);
                    fullLoads++;
                    snapshotStamp = snapshot;
                    logGeneration = header[0];
                    logEnd = header[1];
                    loaded = true;
                }
                if (log != null) {
                    readTail(log, store);
                }
            }
            ok = true;
        } finally {
            if (!ok) {
                loaded = false;
            }
        }
    }

    /**
     * Saves what an operation changed: appends {@code changes} as one log line (compacting when the log has grown
     * past its bound), or, when there is no snapshot yet (or it was removed), writes the whole host. With
     * {@code mayWrite} a missing snapshot is created even when nothing changed. Call while {@link #locked} is held,
     * after {@link #refresh}.
     */
    void commit(EmulatorStore store, List<StoreChange> changes, boolean mayWrite) throws IOException {
        boolean ok = false;
        try {
            if (!loaded || !Files.exists(path)) {
                if (mayWrite || !changes.isEmpty()) {
                    long previous = Math.max(0, Math.max(logGeneration, existingLogGeneration()));
                    writeSnapshot(store.toDocument());
                    createLog(previous + 1);
                    loaded = true;
                }
                ok = true;
                return;
            }
            if (!changes.isEmpty()) {
                if (logGeneration < 0) {
                    createLog(1);
                }
                append(changes);
                if (logEnd > Math.max(snapshotStamp.size(), compactMinBytes)) {
                    compact(store);
                }
            }
            ok = true;
        } finally {
            if (!ok) {
                loaded = false;
            }
        }
    }

    /** Writes the whole host as a new snapshot and starts the next log generation. */
    void compact(EmulatorStore store) throws IOException {
        writeSnapshot(store.toDocument());
        createLog(logGeneration + 1);
    }

    /** The snapshot document, or empty when there is no file yet. Call while {@link #locked} is held. */
    Optional<EmulatorStateDocument> readSnapshot() throws IOException {
        if (!Files.exists(path) || Files.size(path) == 0) {
            return Optional.empty();
        }
        EmulatorStateDocument doc;
        try {
            doc = indented.readValue(path.toFile(), EmulatorStateDocument.class);
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

    // ---- snapshot ----------------------------------------------------------------------------------------------

    private void writeSnapshot(EmulatorStateDocument doc) throws IOException {
        Path tmp = Files.createTempFile(path.getParent(), path.getFileName().toString(), ".tmp");
        try {
            indented.writeValue(tmp.toFile(), doc);
            replace(tmp, path);
        } finally {
            Files.deleteIfExists(tmp);
        }
        snapshotStamp = stamp(path);
    }

    private static Stamp stamp(Path p) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return new Stamp(a.fileKey(), a.size(), a.lastModifiedTime());
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    // ---- change log --------------------------------------------------------------------------------------------

    private FileChannel openLog() throws IOException {
        try {
            return FileChannel.open(logPath, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** {generation, offset after the header line}; an empty file counts as no log ({-1, 0}). */
    private long[] readHeader(FileChannel log) throws IOException {
        if (log.size() == 0) {
            return new long[] {-1, 0};
        }
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(log.size(), 4096));
        int n = log.read(buf, 0);
        byte[] bytes = buf.array();
        int nl = -1;
        for (int i = 0; i < n; i++) {
            if (bytes[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            throw new IOException("change log " + logPath.getFileName() + " has no header line");
        }
        LogHeader header;
        try {
            header = lines.readValue(bytes, 0, nl, LogHeader.class);
        } catch (JacksonException e) {
            throw new IOException("change log " + logPath.getFileName() + ": unreadable header: "
                    + e.getOriginalMessage(), e);
        }
        if (!LOG_FORMAT.equals(header.format())) {
            throw new IOException("change log " + logPath.getFileName() + " is not a " + LOG_FORMAT + " file");
        }
        highestGeneration = Math.max(highestGeneration, header.generation());
        return new long[] {header.generation(), nl + 1};
    }

    private long existingLogGeneration() throws IOException {
        try (FileChannel log = openLog()) {
            return log == null ? -1 : readHeader(log)[0];
        } catch (IOException e) {
            return -1;
        }
    }

    /** Applies every complete line from {@link #logEnd} on; a torn last line (no newline) is left alone. */
    private void readTail(FileChannel log, EmulatorStore store) throws IOException {
        long pos = logEnd;
        long size = log.size();
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(READ_CHUNK, Math.max(1, size - pos)));
        byte[] line = new byte[256];
        int lineLen = 0;
        while (pos < size) {
            buf.clear();
            int n = log.read(buf, pos);
            if (n <= 0) {
                break;
            }
            pos += n;
            byte[] chunk = buf.array();
            int start = 0;
            for (int i = 0; i < n; i++) {
                if (chunk[i] != '\n') {
                    continue;
                }
                int segment = i - start;
                if (lineLen + segment > line.length) {
                    line = Arrays.copyOf(line, Math.max(line.length * 2, lineLen + segment));
                }
                System.arraycopy(chunk, start, line, lineLen, segment);
                lineLen += segment;
                apply(store, line, lineLen);
                logEnd += lineLen + 1;
                lineLen = 0;
                start = i + 1;
            }
            int rest = n - start;
            if (lineLen + rest > line.length) {
                line = Arrays.copyOf(line, Math.max(line.length * 2, lineLen + rest));
            }
            System.arraycopy(chunk, start, line, lineLen, rest);
            lineLen += rest;
        }
    }

    private void apply(EmulatorStore store, byte[] line, int len) throws IOException {
        if (len == 0) {
            return;
        }
        LogEntry entry;
        try {
            entry = lines.readValue(line, 0, len, LogEntry.class);
        } catch (JacksonException e) {
            throw new IOException("change log " + logPath.getFileName() + ": unreadable line at offset " + logEnd
                    + ": " + e.getOriginalMessage(), e);
        }
        for (StoreChange c : entry.changes()) {
            if (c == null || c.op() == null) {
                continue;
            }
            try {
                store.apply(c);
            } catch (RuntimeException e) {
                throw new IOException("change log " + logPath.getFileName() + ": unusable " + c.op() + " change at "
                        + "offset " + logEnd + ": " + e.getMessage(), e);
            }
        }
    }

    private void append(List<StoreChange> changes) throws IOException {
        byte[] json = lines.writeValueAsBytes(new LogEntry(changes));
        byte[] bytes = Arrays.copyOf(json, json.length + 1);
        bytes[json.length] = '\n';
        try (FileChannel log = FileChannel.open(logPath, StandardOpenOption.WRITE)) {
            if (log.size() > logEnd) {
                log.truncate(logEnd); // a torn line left by a writer that died mid-append
            }
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            long pos = logEnd;
            while (buf.hasRemaining()) {
                pos += log.write(buf, pos);
            }
        }
        logEnd += bytes.length;
    }

    /**
     * Replaces the log with a header of {@code requested} or, if this process has seen that generation or a later
     * one, the next unused one (atomically, so readers see the old or the new log).
     */
    private void createLog(long requested) throws IOException {
        long generation = Math.max(requested, highestGeneration + 1);
        byte[] json = lines.writeValueAsBytes(new LogHeader(LOG_FORMAT, generation));
        byte[] bytes = Arrays.copyOf(json, json.length + 1);
        bytes[json.length] = '\n';
        Path tmp = Files.createTempFile(path.getParent(), logPath.getFileName().toString(), ".tmp");
        try {
            Files.write(tmp, bytes);
            replace(tmp, logPath);
        } finally {
            Files.deleteIfExists(tmp);
        }
        logGeneration = generation;
        highestGeneration = generation;
        logEnd = bytes.length;
    }

    private static void replace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
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
