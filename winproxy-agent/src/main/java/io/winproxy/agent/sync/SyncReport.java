package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.ApplyResult;
import io.winproxy.policy.plan.Plan;
import java.time.Duration;

/** What one sync did: the policy snapshot, the plan and the outcome of applying it. */
public record SyncReport(long sequence, PolicySnapshot snapshot, Plan plan, ApplyResult result, Duration duration) {

    /** True when the sync wrote to HNS (created, modified or deleted something). */
    public boolean changed() {
        return result.changed();
    }
}
