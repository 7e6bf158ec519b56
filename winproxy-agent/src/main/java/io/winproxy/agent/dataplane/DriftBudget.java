package io.winproxy.agent.dataplane;

import java.time.Duration;

/**
 * How hard winproxy looks for content drift of the objects it owns: every owned object is re-read once per
 * {@code period}. The reads are spread over the periodic resyncs in proportion to the time elapsed (owned objects x
 * elapsed / period, so the number per resync follows the number of owned objects), and capped at {@code readsPerSync}
 * documents in one resync; a sync for a change in between reads none. Periodic resyncs run at least every
 * {@code syncPeriod} even under churn, so the period holds while owned objects x syncPeriod / period stays under the
 * cap (200,000 objects at the defaults: 10 minutes, 30 s, 10,000). Deletions behind winproxy's back are seen by every
 * sync regardless (the IDs are enumerated).
 */
public record DriftBudget(Duration period, int readsPerSync) {
    /** Every owned object once per 10 minutes, at most 10,000 documents per periodic resync. */
    public static final DriftBudget DEFAULT = new DriftBudget(Duration.ofMinutes(10), 10_000);

    public DriftBudget {
        if (period.isNegative() || readsPerSync < 0) {
            throw new IllegalArgumentException("drift budget must not be negative");
        }
    }
}
