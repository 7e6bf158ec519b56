package io.winproxy.agent.sync;

import io.winproxy.agent.DaemonThreads;
import io.winproxy.agent.fatal.FatalErrors;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} backed by one daemon thread: the sync thread. {@link #close()} stops it, waiting up to the given
 * time for the task in progress to finish. An {@link Error} thrown by a task ends the process
 * ({@link FatalErrors}): the executor would otherwise keep it in the task's Future and the sync thread would stop
 * silently.
 */
public final class ExecutorScheduler implements Scheduler, AutoCloseable {
    private final ScheduledThreadPoolExecutor executor;

    public ExecutorScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, DaemonThreads.named(threadName));
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        if (executor.isShutdown()) {
            return () -> { };
        }
        ScheduledFuture<?> future = executor.schedule(FatalErrors.guarded(task), Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    /** Stops accepting tasks, drops the delayed ones and waits for the one in progress (not interrupting it). */
    public void close(Duration timeout) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }
}
