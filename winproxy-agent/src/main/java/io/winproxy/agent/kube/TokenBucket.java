package io.winproxy.agent.kube;

import java.util.function.LongSupplier;

/**
 * A token bucket: holds at most {@code capacity} tokens, refilled continuously at {@code ratePerSecond}.
 * {@link #acquire()} takes one token, sleeping until one is available. Thread-safe.
 */
final class TokenBucket {
    private static final double NANOS_PER_SECOND = 1_000_000_000d;

    private final double ratePerSecond;
    private final double capacity;
    private final LongSupplier nanoClock;
    private double tokens;
    private long lastRefillNanos;

    /** @param capacity at least 1 (client-go treats a burst of 0 with a positive qps as 1) */
    TokenBucket(double ratePerSecond, int capacity, LongSupplier nanoClock) {
        if (ratePerSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + ratePerSecond);
        }
        this.ratePerSecond = ratePerSecond;
        this.capacity = Math.max(1, capacity);
        this.nanoClock = nanoClock;
        this.tokens = this.capacity;
        this.lastRefillNanos = nanoClock.getAsLong();
    }

    /** Takes a token, blocking until one is available. An interrupt ends the wait (and keeps the flag set). */
    void acquire() {
        long waitNanos = reserve();
        if (waitNanos > 0) {
            try {
                Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Takes a token if one is available now; never waits and never goes into debt. */
    synchronized boolean tryAcquire() {
        refill();
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /**
     * Takes a token, possibly going into debt, and returns how long the caller must wait (0 when a token was
     * available). Reservation in advance keeps waiting callers in order.
     */
    synchronized long reserve() {
        refill();
        tokens -= 1;
        if (tokens >= 0) {
            return 0;
        }
        return (long) Math.ceil(-tokens / ratePerSecond * NANOS_PER_SECOND);
    }

    private void refill() {
        long now = nanoClock.getAsLong();
        tokens = Math.min(capacity, tokens + (now - lastRefillNanos) / NANOS_PER_SECOND * ratePerSecond);
        lastRefillNanos = now;
    }
}
