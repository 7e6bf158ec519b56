package io.winproxy.agent.bench;

import io.winproxy.agent.sync.Scheduler;
import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * A {@link Scheduler} on a manual clock, run by the benchmark's main thread: tasks run only inside
 * {@link #runUntil}, in due order, and the clock jumps to each task's due time. So the sync loop's runner behaves
 * as on a node (cool-down after a sync, the periodic resync one {@code syncPeriod} later) without sleeping.
 */
final class SteppedScheduler implements Scheduler {
    private record Task(long due, long seq, Runnable task, boolean[] cancelled) {
    }

    private final PriorityQueue<Task> queue = new PriorityQueue<>(
            Comparator.comparingLong(Task::due).thenComparingLong(Task::seq));
    private long nowNanos;
    private long seq;

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        boolean[] cancelled = {false};
        queue.add(new Task(nowNanos + Math.max(0, delay.toNanos()), seq++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    /**
     * Runs due tasks in order, moving the clock to each, until {@code done} holds after a task; false when the
     * queue holds nothing due within {@code limit} from now.
     */
    boolean runUntil(BooleanSupplier done, Duration limit) {
        long deadline = nowNanos + limit.toNanos();
        while (!done.getAsBoolean()) {
            Task next = queue.peek();
            if (next == null || next.due() > deadline) {
                return false;
            }
            queue.poll();
            nowNanos = Math.max(nowNanos, next.due());
            if (!next.cancelled()[0]) {
                next.task().run();
            }
        }
        return true;
    }

    /** The manual clock, for the dataplane's monotonic time. */
    long nanoTime() {
        return nowNanos;
    }
}
