package io.winproxy.agent.fatal;

import io.winproxy.agent.logging.StderrWrites;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the process on any {@link Error} (OutOfMemoryError, StackOverflowError, ...) in one of the agent's threads,
 * so that its supervisor (the SCM, nssm, the kubelet) restarts it instead of a half-dead agent staying up.
 *
 * <p>Contract of {@link #fatal}: one log line {@code "fatal error, exiting" thread="T" error="E"} (ERROR, which also
 * reaches stderr), then {@code Runtime.halt(}{@value #EXIT_CODE}{@code )}: shutdown hooks do not run (they could
 * need memory or wait on the dead thread). A 256 KiB reserve allocated at class load is dropped first, so that the
 * line has memory to be formatted in; when logging fails anyway, or returns without the line reaching stderr
 * ({@link StderrWrites}), a line preformatted at class load is written to stderr instead. Installed as the default uncaught exception handler by
 * {@link #install()}; executors that keep a task's Throwable in its Future call {@link #fatal} themselves.
 * Exceptions that are not Errors are logged in one line and do not end the process.
 */
public final class FatalErrors implements Thread.UncaughtExceptionHandler {
    /** The exit code after a fatal error: a runtime failure, as in {@code Main}. */
    public static final int EXIT_CODE = 1;

    private static final Logger logger = LoggerFactory.getLogger(FatalErrors.class);
    private static final byte[] FALLBACK_LINE =
            "winproxy: fatal error (could not log it), exiting\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALLBACK_OOM_LINE =
            "winproxy: fatal error, exiting error=\"java.lang.OutOfMemoryError\" (no memory left to log more)\n"
                    .getBytes(StandardCharsets.US_ASCII);
    /** Heap released before logging a fatal error, so that the one log line has memory to be formatted in. */
    private static volatile byte[] reserve = new byte[256 * 1024];
    private static volatile FatalErrors process =
            new FatalErrors(System.err, code -> Runtime.getRuntime().halt(code), StderrWrites::count);

    private final PrintStream stderr;
    private final IntConsumer halt;
    private final LongSupplier loggedToStderr;
    private final AtomicBoolean started = new AtomicBoolean();

    /**
     * @param stderr the fallback stream when logging fails
     * @param halt   ends the process with the code (tests record it instead)
     */
    public FatalErrors(PrintStream stderr, IntConsumer halt) {
        this(stderr, halt, () -> -1);
    }

    /**
     * @param loggedToStderr bytes the logging has written to stderr so far, -1 when not known: when a log call
     *                       returns without them growing, the line did not reach stderr and the preformatted one is
     *                       written there instead
     */
    public FatalErrors(PrintStream stderr, IntConsumer halt, LongSupplier loggedToStderr) {
        this.stderr = Objects.requireNonNull(stderr, "stderr");
        this.halt = Objects.requireNonNull(halt, "halt");
        this.loggedToStderr = Objects.requireNonNull(loggedToStderr, "loggedToStderr");
    }

    /** Makes the process handler the JVM's default uncaught exception handler. */
    public static void install() {
        Thread.setDefaultUncaughtExceptionHandler(process);
    }

    /** The process-wide handler (what executors call on an Error they caught). */
    public static FatalErrors process() {
        return process;
    }

    /** Replaces the process-wide handler (tests); returns the previous one. */
    public static FatalErrors replaceProcessHandler(FatalErrors handler) {
        FatalErrors previous = process;
        process = Objects.requireNonNull(handler, "handler");
        return previous;
    }

    /** Runs {@code task}; an {@link Error} it throws ends the process through {@link #process()}. */
    public static Runnable guarded(Runnable task) {
        Objects.requireNonNull(task, "task");
        return () -> {
            try {
                task.run();
            } catch (Error e) {
                process.fatal(Thread.currentThread(), e);
                throw e;
            }
        };
    }

    @Override
    public void uncaughtException(Thread thread, Throwable e) {
        if (e instanceof Error error) {
            fatal(thread, error);
            return;
        }
        try {
            logger.atError().setMessage("thread ended by an uncaught exception").addKeyValue("thread", thread.getName())
                    .addKeyValue("error", oneLine(e)).log();
        } catch (Throwable ignored) {
            // nothing more can be done for a thread that is already gone
        }
    }

    /**
     * Logs {@code error} in one line and halts the process with {@link #EXIT_CODE}. Only the first thread logs:
     * under memory pressure several threads fail at once, and one line is wanted; the others wait up to 2 s for it
     * to halt the process, then write the preformatted line and halt it themselves.
     */
    public void fatal(Thread thread, Error error) {
        if (!started.compareAndSet(false, true)) {
            try {
                Thread.sleep(2_000);
                // the first thread did not halt in time (its logging is stuck): say it here, preformatted
                stderr.write(error instanceof OutOfMemoryError ? FALLBACK_OOM_LINE : FALLBACK_LINE);
                stderr.flush();
            } catch (Throwable ignored) {
                // halt regardless
            }
            halt.accept(EXIT_CODE);
            return;
        }
        reserve = null;
        boolean logged;
        long before = loggedToStderr.getAsLong();
        try {
            logger.atError().setMessage("fatal error, exiting").addKeyValue("thread", thread.getName())
                    .addKeyValue("error", oneLine(error)).log();
            // A log call can return without the line reaching stderr (an appender that fails drops events silently)
            logged = before < 0 || loggedToStderr.getAsLong() != before;
        } catch (Throwable loggingFailed) {
            logged = false;
        }
        if (!logged) {
            try {
                stderr.write(error instanceof OutOfMemoryError ? FALLBACK_OOM_LINE : FALLBACK_LINE);
                stderr.flush();
            } catch (Throwable ignored) {
                // halt regardless
            }
        }
        try {
            // halt() skips every flush: push out whatever the standard streams still buffer
            System.out.flush();
            stderr.flush();
        } catch (Throwable ignored) {
            // halt regardless
        }
        halt.accept(EXIT_CODE);
    }

    private static String oneLine(Throwable e) {
        String text = e.toString();
        StringBuilder out = new StringBuilder(Math.min(text.length(), 300));
        for (int i = 0; i < text.length() && out.length() < 300; i++) {
            char c = text.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return out.toString();
    }
}
