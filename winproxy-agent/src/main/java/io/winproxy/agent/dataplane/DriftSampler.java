package io.winproxy.agent.dataplane;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Chooses which owned objects to re-read for content drift, on a rolling budget: every owned object once per
 * {@code period} of elapsed time, but never more than {@code maxPerSync} documents in one sync. Objects are taken
 * oldest check first (a rotating queue); new objects join at the end. The budget accrues as time passes (owned
 * objects x elapsed / period) and is spent only when a sync asks for drift checks, capped at {@code maxPerSync}.
 * Objects earn credit only for time they were tracked: the budget accrues on the fewer of the objects tracked at the
 * previous call and now, so the 100,000 objects a first sync creates do not earn credit for that whole sync.
 *
 * <p>Not thread-safe: the sync thread owns it.
 */
final class DriftSampler {
    private final Duration period;
    private final int maxPerSync;
    private final LongSupplier nanoTime;
    /**
     * The rotation. An ArrayDeque, not a set: 100,000 owned objects cost 100,000 references, not 100,000 map
     * entries. An ID may be in it twice (tracked again after a modify); {@link #next} drops repeats it meets, and the
     * queue is de-duplicated when it grows past twice the IDs it has seen owned.
     */
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    private int lastOwned;
    /** The queue's size at the previous {@link #next} call. */
    private int sizeAtLastCall;
    private double credit;
    private long lastNanos;
    private boolean started;

    DriftSampler(Duration period, int maxPerSync, LongSupplier nanoTime) {
        this.period = period;
        this.maxPerSync = Math.max(0, maxPerSync);
        this.nanoTime = nanoTime;
    }

    /**
     * Adds an object to the rotation (at the end). Objects leave it lazily: {@link #next} drops the IDs that are no
     * longer owned when it meets them.
     */
    void track(String id) {
        queue.addLast(id);
        if (queue.size() > 2 * Math.max(1024, lastOwned)) {
            LinkedHashSet<String> distinct = new LinkedHashSet<>(queue);
            queue.clear();
            queue.addAll(distinct);
            lastOwned = distinct.size();
        }
    }

    /**
     * The IDs to re-read in this sync (moved to the end of the rotation), skipping and dropping those
     * {@code stillOwned} rejects. Returns none when {@code allowed} is false, but the budget keeps accruing.
     */
    List<String> next(boolean allowed, Predicate<String> stillOwned) {
        long now = nanoTime.getAsLong();
        int tracked = queue.size();
        if (started && !period.isZero()) {
            credit += (double) Math.min(tracked, sizeAtLastCall) * (now - lastNanos) / period.toNanos();
        } else if (!started) {
            started = true;
        }
        lastNanos = now;
        sizeAtLastCall = tracked;
        credit = Math.min(credit, maxPerSync);
        if (!allowed || maxPerSync == 0) {
            return List.of();
        }
        int budget = period.isZero() ? maxPerSync : (int) Math.floor(credit);
        List<String> out = new ArrayList<>(Math.min(budget, queue.size()));
        Set<String> taken = new HashSet<>();
        int looked = 0;
        int size = queue.size();
        while (out.size() < budget && looked < size) {
            String id = queue.pollFirst();
            looked++;
            if (stillOwned.test(id) && taken.add(id)) {
                out.add(id);
            }
        }
        queue.addAll(out);
        credit -= out.size();
        return out;
    }
}
