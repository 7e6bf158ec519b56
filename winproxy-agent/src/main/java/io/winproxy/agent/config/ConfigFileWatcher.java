package io.winproxy.agent.config;

import io.winproxy.agent.logging.KlogRefs;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-proxy's watch on the {@code --config} file: when the file's content changes (written, replaced, renamed
 * away, or a ConfigMap mount's symlink swapped), {@code onChange} is called once with kube-proxy's message
 * {@value #MESSAGE}; the caller then exits non-zero so that its supervisor restarts it with the new file.
 *
 * <p>Watches the file's directory and compares a digest of the content on every directory event, so touching the
 * file without changing it, or changes to other files, do nothing. One daemon thread; {@link #close()} stops it.
 */
public final class ConfigFileWatcher implements Closeable {
    /** How long the file's content must stay the same before it is compared. */
    static final Duration SETTLE = Duration.ofMillis(200);
    public static final String MESSAGE = "content of the proxy server's configuration file was updated";

    private static final Logger logger = LoggerFactory.getLogger(ConfigFileWatcher.class);

    private final Path file;
    private final WatchService watchService;
    private final byte[] initialDigest;
    private final Consumer<String> onChange;
    private final AtomicBoolean fired = new AtomicBoolean();
    private final Thread thread;

    private ConfigFileWatcher(Path file, Consumer<String> onChange) throws IOException {
        this.file = file.toAbsolutePath();
        this.onChange = onChange;
        this.initialDigest = digest(this.file);
        this.watchService = FileSystems.getDefault().newWatchService();
        this.file.getParent().register(watchService, StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        this.thread = new Thread(this::run, "config-file-watcher");
        this.thread.setDaemon(true);
    }

    /**
     * Starts watching {@code file}.
     *
     * @param onChange called at most once, from the watcher thread, with {@value #MESSAGE}
     * @throws IOException when the file cannot be read or its directory cannot be watched
     */
    public static ConfigFileWatcher start(Path file, Consumer<String> onChange) throws IOException {
        ConfigFileWatcher watcher = new ConfigFileWatcher(file, onChange);
        watcher.thread.start();
        return watcher;
    }

    private void run() {
        try {
            while (!fired.get()) {
                WatchKey key = watchService.take();
                key.pollEvents();
                if (changed() && fired.compareAndSet(false, true)) {
                    logger.atInfo().setMessage(KlogRefs.capitalize(MESSAGE)).addKeyValue("path", file).log();
                    onChange.accept(MESSAGE);
                    return;
                }
                if (!key.reset()) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ClosedWatchServiceException e) {
            // closed: stop quietly
        }
    }

    /**
     * Compares the file's settled content with the content at start. A writer truncates and then writes, so a read
     * right after the event can see an empty or partial file: read until two reads {@link #SETTLE} apart agree.
     */
    private boolean changed() throws InterruptedException {
        try {
            byte[] current = digest(file);
            for (int attempt = 0; attempt < 10; attempt++) {
                Thread.sleep(SETTLE.toMillis());
                byte[] again = digest(file);
                if (Arrays.equals(current, again)) {
                    break;
                }
                current = again;
            }
            return !Arrays.equals(initialDigest, current);
        } catch (IOException e) {
            return true;
        }
    }

    private static byte[] digest(Path file) throws IOException {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public void close() throws IOException {
        watchService.close();
        thread.interrupt();
    }
}
