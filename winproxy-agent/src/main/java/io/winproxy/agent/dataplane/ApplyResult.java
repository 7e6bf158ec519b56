package io.winproxy.agent.dataplane;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link HnsDataplane#apply} did. {@code writes} counts HNS write calls (create, modify, delete);
 * {@code failures} lists the steps that failed (each retried with backoff on later syncs); {@code deferred} the
 * steps skipped because their object is still backing off or HNS is unavailable; {@code remaining} counts the steps
 * left for the next chunk when the apply reached its time bound (a bounded sync) or the agent stops;
 * {@code journalBlocked} is true when creates waited because the ownership journal could not be written (write-ahead).
 * {@code changed} is true when anything was written.
 */
public record ApplyResult(int created, int modified, int deleted, int adopted, int writes,
                          List<StepFailure> failures, List<String> deferred, int remaining, boolean journalBlocked) {
    public ApplyResult {
        failures = List.copyOf(failures);
        deferred = List.copyOf(deferred);
    }

    public ApplyResult(int created, int modified, int deleted, int adopted, int writes, List<StepFailure> failures,
                       List<String> deferred) {
        this(created, modified, deleted, adopted, writes, failures, deferred, 0, false);
    }

    /** Collects what an apply did. */
    static final class Builder {
        int created;
        int modified;
        int deleted;
        int adopted;
        int writes;
        int ran;
        boolean journalBlocked;
        final List<StepFailure> failures = new ArrayList<>();
        final List<String> deferred = new ArrayList<>();

        ApplyResult build(int remaining) {
            return new ApplyResult(created, modified, deleted, adopted, writes, failures, deferred, remaining,
                    journalBlocked);
        }
    }

    public static final ApplyResult EMPTY = new ApplyResult(0, 0, 0, 0, 0, List.of(), List.of());

    /** True when every step ran and succeeded. */
    public boolean complete() {
        return failures.isEmpty() && deferred.isEmpty() && remaining == 0;
    }

    /** True when the apply stopped at its time bound with steps left for the next chunk. */
    public boolean partial() {
        return remaining > 0;
    }

    public boolean changed() {
        return writes > 0;
    }

    /**
     * One failed step: the plan op, the object ("10.96.0.10:80/TCP", an endpoint IP or an ID), the service port it
     * serves ("ns/name:port", empty when not a load balancer of a service), the HRESULT name (empty when the
     * failure was not an HNS error) and a one-line message.
     */
    public record StepFailure(String op, String object, String service, String hresult, String message) {
        @Override
        public String toString() {
            return op + " " + object + ": " + message;
        }
    }
}
