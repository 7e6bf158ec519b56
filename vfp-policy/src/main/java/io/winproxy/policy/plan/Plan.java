package io.winproxy.policy.plan;

import java.util.List;

/**
 * An ordered list of HNS operations, plus the unowned leftovers winproxy reports but does not delete. A plan is empty
 * when it has no HNS write: adoptions only record existing objects in the journal.
 */
public record Plan(List<PlanStep> steps, List<String> unownedLoadBalancerIds) {
    public Plan {
        steps = List.copyOf(steps);
        unownedLoadBalancerIds = List.copyOf(unownedLoadBalancerIds);
    }

    public boolean isEmpty() {
        return steps.stream().allMatch(s -> s instanceof PlanStep.AdoptLoadBalancer
                || s instanceof PlanStep.AdoptRemoteEndpoint);
    }
}
