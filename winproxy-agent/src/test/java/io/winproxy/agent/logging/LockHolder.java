package io.winproxy.agent.logging;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A second process for {@link KlogFileAppenderTest}: takes the klog file's lock as a running winproxy holds it,
 * prints {@code locked}, and keeps it until its standard input closes.
 */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws IOException {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock(KlogFileAppender.LOCK_POSITION, 1, false);
            System.out.println(lock == null ? "busy" : "locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the lock until the parent closes our stdin
            }
        }
    }
}
