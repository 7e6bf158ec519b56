package io.winproxy.agent.fatal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.winproxy.agent.sync.BoundedFrequencyRunner;
import io.winproxy.agent.sync.ExecutorScheduler;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Issue 17.6: an Error anywhere in the agent's threads is logged in one line and ends the process. */
class FatalErrorsTest {

    private final BlockingQueue<Integer> halts = new ArrayBlockingQueue<>(10);
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private FatalErrors previous;

    @BeforeEach
    void recordHalts() {
        previous = FatalErrors.replaceProcessHandler(new FatalErrors(new PrintStream(stderr, true,
                StandardCharsets.UTF_8), halts::add));
        log.start();
        ((Logger) LoggerFactory.getLogger(FatalErrors.class)).addAppender(log);
    }

    @AfterEach
    void restore() {
        FatalErrors.replaceProcessHandler(previous);
        ((Logger) LoggerFactory.getLogger(FatalErrors.class)).detachAppender(log);
    }

    @Test
    void anOutOfMemoryErrorInTheSyncLoopEndsTheProcessInsteadOfVanishingIntoTheExecutorsFuture() throws Exception {
        ExecutorScheduler scheduler = new ExecutorScheduler("winproxy-sync");
        try {
            BoundedFrequencyRunner runner = new BoundedFrequencyRunner("sync", () -> {
                throw new OutOfMemoryError("Java heap space");
            }, Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(30), scheduler);
            runner.start();
            runner.run();

            assertThat(halts.poll(10, TimeUnit.SECONDS)).isEqualTo(FatalErrors.EXIT_CODE);
        } finally {
            scheduler.close(Duration.ofSeconds(1));
        }
        assertThat(log.list).hasSize(1);
        assertThat(line(log.list.get(0)))
                .isEqualTo("fatal error, exiting thread=winproxy-sync error=java.lang.OutOfMemoryError: Java heap space");
        assertThat(log.list.get(0).getThrowableProxy()).as("one line, no stack trace").isNull();
    }

    @Test
    void anErrorOnAPlainThreadReachesTheDefaultHandlerAndEndsTheProcess() throws Exception {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        FatalErrors.install();
        try {
            Thread thread = new Thread(() -> {
                throw new StackOverflowError("deep\nline");
            }, "informer");
            thread.start();
            thread.join(5_000);
            assertThat(halts.poll(5, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(line(log.list.get(0))).doesNotContain("\n").contains("thread=informer");
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    @Test
    void anUncaughtExceptionThatIsNotAnErrorIsLoggedAndTheProcessGoesOn() throws Exception {
        FatalErrors.process().uncaughtException(new Thread("worker"), new IllegalStateException("boom"));
        assertThat(halts.poll(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(line(log.list.get(0))).isEqualTo(
                "thread ended by an uncaught exception thread=worker error=java.lang.IllegalStateException: boom");
    }

    @Test
    void whenLoggingItselfFailsAPreformattedLineGoesToStderrAndTheProcessStillEnds() {
        Logger logger = (Logger) LoggerFactory.getLogger(FatalErrors.class);
        ListAppender<ILoggingEvent> failing = new ListAppender<>() {
            @Override
            protected void append(ILoggingEvent event) {
                throw new OutOfMemoryError("no room to log");
            }
        };
        failing.start();
        logger.addAppender(failing);
        try {
            FatalErrors.process().fatal(Thread.currentThread(), new OutOfMemoryError("Java heap space"));
        } finally {
            logger.detachAppender(failing);
        }
        assertThat(halts.poll()).isEqualTo(1);
        assertThat(stderr.toString(StandardCharsets.UTF_8))
                .isEqualTo("winproxy: fatal error, exiting error=\"java.lang.OutOfMemoryError\" (no memory left to log "
                        + "more)\n");
    }

    @Test
    void whenSeveralThreadsFailAtOnceOnlyTheFirstLogsAndEveryOneEndsInAHalt() throws Exception {
        FatalErrors handler = FatalErrors.process();
        Thread second = new Thread(() -> handler.fatal(Thread.currentThread(), new OutOfMemoryError("second")));
        handler.fatal(Thread.currentThread(), new OutOfMemoryError("first"));
        second.start();
        second.join(5_000);
        assertThat(halts.poll(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(halts.poll(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(log.list).hasSize(1);
        assertThat(line(log.list.get(0))).contains("first");
    }

    @Test
    void aLogCallThatReturnsWithoutTheLineReachingStderrIsFollowedByThePreformattedLine() {
        // seen under memory pressure: the log call returned, nothing reached stderr, and the process ended silently
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong(120);
        new FatalErrors(new PrintStream(stderr, true, StandardCharsets.UTF_8), halts::add, written::get)
                .fatal(Thread.currentThread(), new OutOfMemoryError("Java heap space"));
        assertThat(halts).containsExactly(1);
        assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo("winproxy: fatal error, exiting "
                + "error=\"java.lang.OutOfMemoryError\" (no memory left to log more)\n");
    }

    @Test
    void aLogCallWhoseLineReachedStderrIsNotRepeated() {
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong(120);
        ListAppender<ILoggingEvent> counting = new ListAppender<>() {
            @Override
            protected void append(ILoggingEvent event) {
                written.addAndGet(80);
            }
        };
        counting.start();
        Logger logger = (Logger) LoggerFactory.getLogger(FatalErrors.class);
        logger.addAppender(counting);
        try {
            new FatalErrors(new PrintStream(stderr, true, StandardCharsets.UTF_8), halts::add, written::get)
                    .fatal(Thread.currentThread(), new OutOfMemoryError("Java heap space"));
        } finally {
            logger.detachAppender(counting);
        }
        assertThat(halts).containsExactly(1);
        assertThat(stderr.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    /** The message and its key/values as klog writes them, unquoted: what the line says. */
    private static String line(ILoggingEvent event) {
        StringBuilder line = new StringBuilder(event.getFormattedMessage());
        if (event.getKeyValuePairs() != null) {
            event.getKeyValuePairs().forEach(kv -> line.append(' ').append(kv.key).append('=').append(kv.value));
        }
        return line.toString();
    }
}
