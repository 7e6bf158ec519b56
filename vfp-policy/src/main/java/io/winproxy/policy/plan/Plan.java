package io.winproxy.policy.plan;

import java.util.List;
import java.util.function.Function;

/**
 * An ordered list of HNS operations, plus the unowned leftovers winproxy reports but does not delete. A plan is empty
 * when it has no HNS write: adoptions only record existing objects in the journal. {@code providerAddresses} gives the
 * desired provider address of a remote-endpoint IP (null when not desired) the plan resolved backends with ({@link EndpointResolver}); the
 * dataplane resolves with the same map so that the fingerprints it records are the ones the next plan computes.
 */
public record Plan(List<PlanStep> steps, List<String> unownedLoadBalancerIds,
                   Function<String, String> providerAddresses) {
    public Plan {
        steps = List.copyOf(steps);
        unownedLoadBalancerIds = List.copyOf(unownedLoadBalancerIds);
    }

    /**
     * @param steps                  the operations in execution order
     * @param unownedLoadBalancerIds unowned load balancers left in place
     */
    public Plan(List<PlanStep> steps, List<String> unownedLoadBalancerIds) {
        this(steps, unownedLoadBalancerIds, ip -> null);
    }

    public boolean isEmpty() {
        return steps.stream().noneMatch(PlanStep::writes);
    }
}
