package io.winproxy.agent.sync;

import java.time.Duration;

/**
 * Runs tasks after a delay on one thread, in due order. The production implementation wraps a single-thread
 * {@link java.util.concurrent.ScheduledExecutorService} (the sync thread); tests use a manual clock, so the runner is
 * tested without sleeping.
 */
public interface Scheduler {

    /** A scheduled task that can be cancelled; cancelling a task that already ran does nothing. */
    interface Cancellable {
        void cancel();
    }

    /** Runs {@code task} once, {@code delay} from now ({@link Duration#ZERO}: as soon as the thread is free). */
    Cancellable schedule(Duration delay, Runnable task);
}
