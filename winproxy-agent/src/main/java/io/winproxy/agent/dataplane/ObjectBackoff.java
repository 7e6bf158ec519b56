package io.winproxy.agent.dataplane;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Per-object exponential backoff for failed HNS writes: after the n-th consecutive failure of an object, steps
 * acting on it are skipped for {@code initial * 2^(n-1)} (capped at {@code max}); a success resets it. Objects are
 * named by a string (a load balancer key, an endpoint IP, an ID). Not thread-safe.
 */
final class ObjectBackoff {
    private record State(int failures, long notBeforeNanos) {
    }

    private final Duration initial;
    private final Duration max;
    private final LongSupplier nanoTime;
    private final Map<String, State> states = new HashMap<>();

    ObjectBackoff(Duration initial, Duration max, LongSupplier nanoTime) {
        this.initial = initial;
        this.max = max;
        this.nanoTime = nanoTime;
    }

    /** True when a step on this object may run now. */
    boolean ready(String object) {
        State s = states.get(object);
        return s == null || nanoTime.getAsLong() - s.notBeforeNanos() >= 0;
    }

    void failed(String object) {
        State previous = states.get(object);
        int failures = previous == null ? 1 : previous.failures() + 1;
        long delay = initial.toNanos();
        for (int i = 1; i < failures && delay < max.toNanos(); i++) {
            delay *= 2;
        }
        delay = Math.min(delay, max.toNanos());
        states.put(object, new State(failures, nanoTime.getAsLong() + delay));
    }

    void succeeded(String object) {
        states.remove(object);
    }

    /** How long steps on this object are still skipped (zero when they may run now). */
    Duration waitLeft(String object) {
        State s = states.get(object);
        long left = s == null ? 0 : s.notBeforeNanos() - nanoTime.getAsLong();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /** Consecutive failures of an object (0 when healthy). */
    int failures(String object) {
        State s = states.get(object);
        return s == null ? 0 : s.failures();
    }
}
