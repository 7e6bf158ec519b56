package io.winproxy.agent.sync;

import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;

/** A {@link Scheduler} driven by a manual clock: tasks run only inside {@link #advance}, in due order. */
final class ManualScheduler implements Scheduler {
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
    void advance(Duration d) {
        long target = nowNanos + d.toNanos();
        while (true) {
            Task next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due() > target) {
                    nowNanos = Math.max(nowNanos, target);
                    return;
                }
                queue.poll();
                nowNanos = Math.max(nowNanos, next.due());
            }
            if (!next.cancelled()[0]) {
                next.task().run();
            }
        }
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
}
