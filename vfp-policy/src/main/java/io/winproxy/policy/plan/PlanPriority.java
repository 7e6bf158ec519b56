package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The order in which a plan's steps are executed when an apply may stop part-way (a bounded sync applies a big plan
 * in chunks over consecutive syncs): most urgent first, every step after the steps it depends on.
 * <ol>
 *   <li>adoptions (no HNS call);</li>
 *   <li>deletions of load balancers no Service needs (traffic to Services that are gone, stale duplicates);</li>
 *   <li>creates of load balancers (Services with no programmed load balancer), each right after the creates of the
 *       remote endpoints its backends need;</li>
 *   <li>modifies and replaces (updates), each right after the remote endpoints they need;</li>
 *   <li>the other remote-endpoint creates, then the deletions of remote endpoints (which must come after the load
 *       balancers that referenced them changed).</li>
 * </ol>
 * Within a class the plan's order is kept. Pure; the result has exactly the plan's steps.
 */
public final class PlanPriority {
    private PlanPriority() {
    }

    public static List<PlanStep> order(List<PlanStep> steps) {
        Map<String, PlanStep> endpointCreates = new HashMap<>();
        for (PlanStep step : steps) {
            if (step instanceof PlanStep.CreateRemoteEndpoint s) {
                endpointCreates.putIfAbsent(s.endpoint().ip(), step);
            }
        }
        List<PlanStep> adopts = new ArrayList<>();
        List<PlanStep> deletes = new ArrayList<>();
        List<PlanStep> creates = new ArrayList<>();
        List<PlanStep> updates = new ArrayList<>();
        List<PlanStep> endpointDeletes = new ArrayList<>();
        for (PlanStep step : steps) {
            if (step instanceof PlanStep.AdoptLoadBalancer || step instanceof PlanStep.AdoptRemoteEndpoint) {
                adopts.add(step);
            } else if (step instanceof PlanStep.DeleteLoadBalancer) {
                deletes.add(step);
            } else if (step instanceof PlanStep.CreateLoadBalancer s) {
                withEndpoints(s.loadBalancer(), step, endpointCreates, creates);
            } else if (step instanceof PlanStep.ModifyLoadBalancer s) {
                withEndpoints(s.loadBalancer(), step, endpointCreates, updates);
            } else if (step instanceof PlanStep.ReplaceLoadBalancer s) {
                withEndpoints(s.loadBalancer(), step, endpointCreates, updates);
            } else if (step instanceof PlanStep.DeleteRemoteEndpoint) {
                endpointDeletes.add(step);
            }
        }
        List<PlanStep> out = new ArrayList<>(steps.size());
        out.addAll(adopts);
        out.addAll(deletes);
        out.addAll(creates);
        out.addAll(updates);
        // Endpoint creates no load balancer claimed, in plan order.
        Set<PlanStep> emitted = Collections.newSetFromMap(new IdentityHashMap<>());
        emitted.addAll(creates);
        emitted.addAll(updates);
        for (PlanStep step : steps) {
            if (step instanceof PlanStep.CreateRemoteEndpoint && !emitted.contains(step)) {
                out.add(step);
            }
        }
        out.addAll(endpointDeletes);
        return out;
    }

    /** Adds the endpoint creates {@code lb}'s backends need (once, the first time), then {@code step}. */
    private static void withEndpoints(DesiredLoadBalancer lb, PlanStep step, Map<String, PlanStep> endpointCreates,
                                      List<PlanStep> into) {
        for (String ip : lb.backends()) {
            PlanStep create = endpointCreates.remove(ip);
            if (create != null) {
                into.add(create);
            }
        }
        into.add(step);
    }
}
