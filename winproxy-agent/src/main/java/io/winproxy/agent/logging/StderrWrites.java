package io.winproxy.agent.logging;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes the logging configuration has written to standard error, so that a caller can tell whether a line it
 * logged reached it: {@code FatalErrors} writes its preformatted line itself when its log call returned but nothing
 * reached stderr (an appender that dropped the event, for one, which logback does without a word when its appender
 * fails). {@link #count()} is -1 until {@link LoggingSetup} has installed a counted stderr appender.
 */
public final class StderrWrites {
    private static final AtomicLong bytes = new AtomicLong(-1);

    private StderrWrites() {
    }

    /** Bytes the logging wrote to stderr since it was configured, or -1 when it is not counted. */
    public static long count() {
        return bytes.get();
    }

    static void counting() {
        bytes.compareAndSet(-1, 0);
    }

    static void wrote(int length) {
        bytes.addAndGet(length);
    }
}
