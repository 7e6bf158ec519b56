package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One winproxy per state directory: an exclusive OS file lock on {@code <dir>/winproxy.lock}, held until
 * {@link #close()} or the process ends (the OS releases it even after kill -9, so a stale file never blocks). The
 * holder writes {@code pid=<pid> started=<instant> role=<role>} into the file so that a refused instance can name it,
 * and {@code winproxy check} can tell the running agent ({@value #AGENT}) from another holder.
 *
 * <p>The lock covers one byte far past the content ({@link #LOCK_OFFSET}), because Windows byte-range locks are
 * mandatory: locking the content would stop the second instance from reading who holds it.
 *
 * <p>A lock this process holds is answered from memory ({@link #HELD}), never by opening the file again: POSIX
 * releases every lock a process holds on a file when it closes any descriptor of that file, so a read of the holder
 * or a trial lock from the same process (the agent's own start-up check) would otherwise hand the directory to a
 * second instance.
 */
public final class InstanceLock implements AutoCloseable {
    /** The lock file's name inside the state directory. */
    public static final String FILE_NAME = "winproxy.lock";
    static final long LOCK_OFFSET = 1L << 20;
    /** The role of the proxy itself in the lock file. */
    public static final String AGENT = "agent";

    private static final Logger logger = LoggerFactory.getLogger(InstanceLock.class);
    private static final Pattern HOLDER = Pattern.compile("pid=(\\d+) started=(\\S+)");
    private static final Pattern ROLE = Pattern.compile("role=(\\S+)");

    /** The locks this process holds, by the lock file's absolute path. */
    private static final Map<Path, InstanceLock> HELD = new ConcurrentHashMap<>();

    private final Path file;
    /** Held on the lock file's channel ({@link FileLock#channel()}), which this instance owns and closes. */
    private final FileLock lock;
    private volatile String role = "";
    private volatile String holder = "";

    private InstanceLock(Path file, FileLock lock) {
        this.file = file;
        this.lock = lock;
    }

    private static Path key(Path file) {
        return file.toAbsolutePath().normalize();
    }

    private static Optional<InstanceLock> heldHere(Path file) {
        return Optional.ofNullable(HELD.get(key(file)));
    }

    /**
     * Takes the lock of {@code dir} (which must exist) for this process.
     *
     * @throws InstanceLockedException        when another process (or another lock in this one) holds it
     * @throws InvalidStateDirectoryException when the lock file cannot be opened or written
     */
    public static InstanceLock acquire(Path dir) {
        return acquire(dir, "");
    }

    /**
     * As {@link #acquire(Path)}, naming what the holder is ({@link #AGENT}, {@code cleanup}, ...; "" unnamed) in the
     * lock file.
     */
    public static InstanceLock acquire(Path dir, String role) {
        Path file = dir.resolve(FILE_NAME);
        Optional<InstanceLock> mine = heldHere(file);
        if (mine.isPresent()) {
            throw new InstanceLockedException(heldMessage(dir, mine.get().holder));
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            SecureFiles.restrictToOwner(file);
        } catch (IOException e) {
            throw new InvalidStateDirectoryException("cannot open the lock file " + file + ": " + e.getMessage());
        }
        FileLock lock;
        try {
            lock = channel.tryLock(LOCK_OFFSET, 1, false);
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new InvalidStateDirectoryException("cannot lock " + file + ": " + e.getMessage());
        }
        if (lock == null) {
            closeQuietly(channel);
            throw new InstanceLockedException(heldMessage(dir, holder(file)));
        }
        InstanceLock held = new InstanceLock(file, lock);
        try {
            held.writeHolder(role == null ? "" : role);
        } catch (IOException e) {
            held.close();
            throw new InvalidStateDirectoryException("cannot write the lock file " + file + ": " + e.getMessage());
        }
        HELD.put(key(file), held);
        logger.info("holding the state directory lock file={}", file);
        return held;
    }

    /** The path of the lock file. */
    public Path file() {
        return file;
    }

    @Override
    public void close() {
        HELD.remove(key(file), this);
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } catch (IOException e) {
            logger.debug("releasing {}: {}", file, e.toString());
        }
        closeQuietly(lock.channel());
    }

    /** The one-line refusal, e.g. {@code the state directory D is in use by another winproxy (pid 42, ...)}. */
    static String heldMessage(Path dir, String holder) {
        return "the state directory " + dir + " is in use by another winproxy (" + holder + "); stop it, or give "
                + "this one another --state-dir";
    }

    /** {@code pid N, started T} from the lock file's content, or a plain description when unreadable. */
    static String holder(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            String text = new String(bytes, 0, Math.min(bytes.length, 256), StandardCharsets.UTF_8);
            Matcher matcher = HOLDER.matcher(text);
            if (matcher.find()) {
                return "pid " + matcher.group(1) + ", started " + matcher.group(2);
            }
        } catch (IOException e) {
            logger.debug("reading {}: {}", file, e.toString());
        }
        return "holder unknown: " + file + " names no process yet";
    }

    /**
     * Whether no process holds {@code dir}'s lock now: tries the lock and releases it at once, writing nothing and
     * creating no file (no lock file: free). For {@code winproxy check}.
     *
     * @throws IOException when the lock file cannot be opened
     */
    public static boolean isFree(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        if (heldHere(file).isPresent()) {
            return false;
        }
        if (!Files.exists(file)) {
            return true;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock(LOCK_OFFSET, 1, false);
            if (lock == null) {
                return false;
            }
            lock.release();
            return true;
        } catch (OverlappingFileLockException e) {
            return false;
        }
    }

    /** The role the current holder of {@code dir}'s lock wrote ("" when none or unreadable). */
    public static String holderRole(Path dir) {
        Optional<InstanceLock> mine = heldHere(dir.resolve(FILE_NAME));
        if (mine.isPresent()) {
            return mine.get().role;
        }
        try {
            byte[] bytes = Files.readAllBytes(dir.resolve(FILE_NAME));
            Matcher matcher = ROLE.matcher(new String(bytes, 0, Math.min(bytes.length, 256), StandardCharsets.UTF_8));
            return matcher.find() ? matcher.group(1) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** {@code pid N, started T} of the current holder of {@code dir}'s lock. */
    public static String describeHolder(Path dir) {
        Optional<InstanceLock> mine = heldHere(dir.resolve(FILE_NAME));
        return mine.isPresent() ? mine.get().holder : holder(dir.resolve(FILE_NAME));
    }

    private void writeHolder(String role) throws IOException {
        ProcessHandle self = ProcessHandle.current();
        Instant started = self.info().startInstant().orElse(Instant.now()).truncatedTo(ChronoUnit.SECONDS);
        byte[] content = ("pid=" + self.pid() + " started=" + started + (role.isEmpty() ? "" : " role=" + role)
                + "\n").getBytes(StandardCharsets.UTF_8);
        this.role = role;
        this.holder = "pid " + self.pid() + ", started " + started;
        FileChannel channel = lock.channel();
        channel.truncate(0);
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
            channel.write(buffer, buffer.position());
        }
        channel.force(true);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            Objects.requireNonNull(e); // nothing else to do: the channel is gone either way
        }
    }
}
