package io.winproxy.agent.dataplane;

import java.time.Duration;

/**
 * How hard winproxy looks for content drift of the objects it owns: every owned object is re-read once per
 * {@code period}, but never more than {@code readsPerSync} documents in one periodic resync (a sync for a change reads
 * none). Deletions behind winproxy's back are seen by every sync regardless (the IDs are enumerated).
 */
public record DriftBudget(Duration period, int readsPerSync) {
    /** Every owned object once per 10 minutes, at most 100 documents per periodic resync. */
    public static final DriftBudget DEFAULT = new DriftBudget(Duration.ofMinutes(10), 100);

    public DriftBudget {
        if (period.isNegative() || readsPerSync < 0) {
            throw new IllegalArgumentException("drift budget must not be negative");
        }
    }
}
