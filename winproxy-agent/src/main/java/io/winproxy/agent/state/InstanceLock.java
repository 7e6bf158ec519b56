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
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One winproxy per state directory: an exclusive OS file lock on {@code <dir>/winproxy.lock}, held until
 * {@link #close()} or the process ends (the OS releases it even after kill -9, so a stale file never blocks). The
 * holder writes {@code pid=<pid> started=<instant>} into the file so that a refused instance can name it.
 *
 * <p>The lock covers one byte far past the content ({@link #LOCK_OFFSET}), because Windows byte-range locks are
 * mandatory: locking the content would stop the second instance from reading who holds it.
 */
public final class InstanceLock implements AutoCloseable {
    /** The lock file's name inside the state directory. */
    public static final String FILE_NAME = "winproxy.lock";
    static final long LOCK_OFFSET = 1L << 20;

    private static final Logger logger = LoggerFactory.getLogger(InstanceLock.class);
    private static final Pattern HOLDER = Pattern.compile("pid=(\\d+) started=(\\S+)");

    private final Path file;
    /** Held on the lock file's channel ({@link FileLock#channel()}), which this instance owns and closes. */
    private final FileLock lock;

    private InstanceLock(Path file, FileLock lock) {
        this.file = file;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code dir} (which must exist) for this process.
     *
     * @throws InstanceLockedException        when another process (or another lock in this one) holds it
     * @throws InvalidStateDirectoryException when the lock file cannot be opened or written
     */
    public static InstanceLock acquire(Path dir) {
        Path file = dir.resolve(FILE_NAME);
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
            held.writeHolder();
        } catch (IOException e) {
            held.close();
            throw new InvalidStateDirectoryException("cannot write the lock file " + file + ": " + e.getMessage());
        }
        logger.info("holding the state directory lock file={}", file);
        return held;
    }

    /** The path of the lock file. */
    public Path file() {
        return file;
    }

    @Override
    public void close() {
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

    private void writeHolder() throws IOException {
        ProcessHandle self = ProcessHandle.current();
        Instant started = self.info().startInstant().orElse(Instant.now()).truncatedTo(ChronoUnit.SECONDS);
        byte[] content = ("pid=" + self.pid() + " started=" + started + "\n").getBytes(StandardCharsets.UTF_8);
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
