package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.ApplyResult;
import io.winproxy.policy.plan.Plan;
import java.time.Duration;

/** What one sync did: the policy snapshot, the plan and the outcome of applying it. */
public record SyncReport(long sequence, PolicySnapshot snapshot, Plan plan, ApplyResult result, Duration duration,
                         Timings timings) {

    /**
     * Where the sync's time went: reading the host ({@code observe}), the desired state ({@code policy}: trackers,
     * node network, policy), the plan ({@code plan}), and executing it ({@code apply}, which includes the HNS writes
     * and the journal flush). Wall clock of the sync thread.
     */
    public record Timings(Duration observe, Duration policy, Duration plan, Duration apply) {
        /** The desired state and the plan together. */
        public Duration policyAndPlan() {
            return policy.plus(plan);
        }
    }

    /** True when the sync wrote to HNS (created, modified or deleted something). */
    public boolean changed() {
        return result.changed();
    }
}
