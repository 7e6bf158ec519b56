package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.encoder.Encoder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * One severity's log files in {@code --log-dir}, named as klog names them:
 * {@code <program>.<host>.<user>.log.<SEVERITY>.<yyyymmdd-hhmmss>.<pid>}, plus the link {@code <program>.<SEVERITY>}
 * to the newest file (created when the file system allows it; Windows needs the symbolic-link privilege, and klog
 * skips the link there too). As klog, the INFO file gets every event, the WARNING file warnings and errors, the
 * ERROR file errors; a file is created with the first event it gets and starts with klog's header lines.
 *
 * <p>Unlike klog, disk use is bounded: when a file would exceed {@code maxBytes} a new file is started, and only
 * the newest {@code keepFiles} files of the severity that winproxy wrote (recognised by the header's
 * {@value #BINARY_LINE} line) are kept; files other programs wrote are never deleted.
 *
 * <p>Which files another running winproxy still writes is decided by a lock, never by a process id (ids are reused,
 * quickly on Windows): while a file is open its writer holds an exclusive OS lock on one byte far beyond the end of
 * the file ({@link #LOCK_POSITION}; a lock past the end never blocks readers of the log, also on Windows, where
 * locks are mandatory). Retention deletes a file only after taking that lock itself, so the open file of a live
 * process (a short {@code plan} or {@code cleanup} sharing {@code --log-dir} with the agent) is never deleted, and
 * the files of processes that ended (the OS releases their locks) are. Thread-safe (logback serialises
 * {@link #doAppend}).
 */
public final class KlogFileAppender extends AppenderBase<ILoggingEvent> {

    /** The header line that marks a file as winproxy's. */
    static final String BINARY_LINE = "Binary: winproxy";

    /** The locked byte: far past any log's end, so the lock never covers the log's content. */
    static final long LOCK_POSITION = Long.MAX_VALUE - 1;

    private static final DateTimeFormatter CREATED = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss", Locale.ROOT);

    private final Path dir;
    private final KlogFileNames names;
    private final String severity;
    private final Level threshold;
    private final long maxBytes;
    private final int keepFiles;
    private final ZoneId zone;
    private Encoder<ILoggingEvent> encoder;
    private OutputStream out;
    private Path current;
    private long written;

    /**
     * @param dir       the directory ({@code --log-dir})
     * @param names     program, host, user and pid of the file names
     * @param severity  INFO, WARNING or ERROR
     * @param maxBytes  start a new file before one exceeds this size; 0 = never
     * @param keepFiles how many files of this severity to keep, the current one included (at least 1)
     * @param zone      the zone of the time stamps (klog: the machine's)
     */
    public KlogFileAppender(Path dir, KlogFileNames names, String severity, long maxBytes, int keepFiles,
                            ZoneId zone) {
        this.dir = dir;
        this.names = names;
        this.severity = severity;
        this.threshold = switch (severity) {
            case "INFO" -> Level.TRACE;
            case "WARNING" -> Level.WARN;
            case "ERROR" -> Level.ERROR;
            default -> throw new IllegalArgumentException("severity must be INFO, WARNING or ERROR: " + severity);
        };
        this.maxBytes = maxBytes;
        this.keepFiles = Math.max(1, keepFiles);
        this.zone = zone;
        setName("klog-" + severity);
    }

    public void setEncoder(Encoder<ILoggingEvent> encoder) {
        this.encoder = encoder;
    }

    /** The file being written, or null before the first event. */
    public Path currentFile() {
        return current;
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (!event.getLevel().isGreaterOrEqual(threshold)) {
            return;
        }
        byte[] bytes = encoder.encode(event);
        try {
            if (out == null || maxBytes > 0 && written > 0 && written + bytes.length > maxBytes) {
                open(LocalDateTime.ofInstant(event.getInstant(), zone));
            }
            out.write(bytes);
            out.flush();
            written += bytes.length;
        } catch (IOException e) {
            addError("cannot write " + current, e);
        }
    }

    private void open(LocalDateTime now) throws IOException {
        closeFile();
        Files.createDirectories(dir);
        LocalDateTime stamp = now;
        Path file = dir.resolve(names.fileName(severity, stamp));
        while (Files.exists(file)) {
            // Two files in one second: klog would truncate the first; take the next free second instead.
            stamp = stamp.plusSeconds(1);
            file = dir.resolve(names.fileName(severity, stamp));
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            if (channel.tryLock(LOCK_POSITION, 1, false) == null) {
                addWarn("cannot lock " + file + "; another process's retention may delete it");
            }
        } catch (IOException | OverlappingFileLockException e) {
            addWarn("cannot lock " + file + ": " + e);
        }
        out = Channels.newOutputStream(channel);
        current = file;
        String header = "Log file created at: " + CREATED.format(now) + "\n"
                + "Running on machine: " + names.host() + "\n"
                + BINARY_LINE + " " + names.version() + " on Java " + System.getProperty("java.version") + "\n"
                + "Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n";
        byte[] bytes = header.getBytes(StandardCharsets.UTF_8);
        out.write(bytes);
        written = bytes.length;
        link(file);
        prune();
    }

    private void link(Path file) {
        Path link = dir.resolve(names.linkName(severity));
        try {
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, file.getFileName());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            addInfo("no link " + link + ": " + e);
        }
    }

    /** Deletes winproxy's oldest files of this severity beyond {@code keepFiles}. */
    private void prune() {
        List<Path> ours = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> names.isFileOf(p.getFileName().toString(), severity))
                    .filter(p -> !p.equals(current))
                    .filter(KlogFileAppender::writtenByWinproxy)
                    .filter(p -> !inUse(p))
                    .forEach(ours::add);
        } catch (IOException e) {
            addWarn("cannot list " + dir + ": " + e);
            return;
        }
        ours.sort(Comparator.comparing((Path p) -> names.stampOf(p.getFileName().toString()))
                .thenComparing(p -> p.getFileName().toString()));
        for (int i = 0; i < ours.size() - (keepFiles - 1); i++) {
            try {
                Files.deleteIfExists(ours.get(i));
            } catch (IOException e) {
                addWarn("cannot delete " + ours.get(i) + ": " + e);
            }
        }
    }

    /**
     * Whether a process (another winproxy, or this one through another appender) holds the file's lock, i.e. still
     * writes it. A file that cannot be opened for writing counts as in use: retention leaves it alone.
     */
    static boolean inUse(Path file) {
        try (FileChannel probe = FileChannel.open(file, StandardOpenOption.WRITE)) {
            FileLock lock = probe.tryLock(LOCK_POSITION, 1, false);
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (IOException | OverlappingFileLockException e) {
            return true;
        }
    }

    private static boolean writtenByWinproxy(Path file) {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < 4; i++) {
                String line = reader.readLine();
                if (line == null) {
                    return false;
                }
                if (line.startsWith(BINARY_LINE)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    @Override
    public void stop() {
        closeFile();
        super.stop();
    }

    private void closeFile() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                addWarn("cannot close " + current + ": " + e);
            }
            out = null;
        }
    }
}
