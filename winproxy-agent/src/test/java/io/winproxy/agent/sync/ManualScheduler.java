package io.winproxy.agent.sync;

import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * A {@link Scheduler} driven by a manual clock: tasks run only inside {@link #advance} or {@link #runUntil}, in due
 * order, and the clock jumps to each task's due time. So a sync loop's runner behaves as on a node (cool-down after a
 * sync, the periodic resync one {@code syncPeriod} later) without sleeping. The unit tests and the benchmark use it.
 */
public final class ManualScheduler implements Scheduler {
    private record Task(long due, long seq, Runnable task, boolean[] cancelled) {
    }

    private final PriorityQueue<Task> queue = new PriorityQueue<>(
            Comparator.comparingLong(Task::due).thenComparingLong(Task::seq));
    private long nowNanos;
    private long seq;

    @Override
    public synchronized Cancellable schedule(Duration delay, Runnable task) {
        boolean[] cancelled = {false};
        queue.add(new Task(nowNanos + Math.max(0, delay.toNanos()), seq++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    /** Moves the clock forward, running every task that falls due on the way (including ones they schedule). */
    public void advance(Duration d) {
        long target = nowNanos + d.toNanos();
        while (runNext(target)) {
            // each pass ran one task
        }
        synchronized (this) {
            nowNanos = Math.max(nowNanos, target);
        }
    }

    /**
     * Runs due tasks in order, moving the clock to each, until {@code done} holds after a task; false when the
     * queue holds nothing due within {@code limit} from now.
     */
    public boolean runUntil(BooleanSupplier done, Duration limit) {
        long deadline = nowNanos + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (!runNext(deadline)) {
                return false;
            }
        }
        return true;
    }

    /** Runs the first task due by {@code deadline}, the clock moved to its due time; false when there is none. */
    private boolean runNext(long deadline) {
        Task next;
        synchronized (this) {
            next = queue.peek();
            if (next == null || next.due() > deadline) {
                return false;
            }
            queue.poll();
            nowNanos = Math.max(nowNanos, next.due());
        }
        if (!next.cancelled()[0]) {
            next.task().run();
        }
        return true;
    }

    /** Moves the clock forward without running anything, as a task that takes {@code millis} of the thread does. */
    synchronized void elapseMillis(long millis) {
        nowNanos += millis * 1_000_000;
    }

    void advanceMillis(long millis) {
        advance(Duration.ofMillis(millis));
    }

    long nowMillis() {
        return nowNanos / 1_000_000;
    }

    /** The manual clock, for the dataplane's monotonic time. */
    public synchronized long nanoTime() {
        return nowNanos;
    }
}
