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
        Classes classes = new Classes(endpointCreates);
        for (PlanStep step : steps) {
            step.accept(classes);
        }
        List<PlanStep> out = new ArrayList<>(steps.size());
        out.addAll(classes.adopts);
        out.addAll(classes.deletes);
        out.addAll(classes.creates);
        out.addAll(classes.updates);
        // Endpoint creates no load balancer claimed, in plan order.
        Set<PlanStep> emitted = Collections.newSetFromMap(new IdentityHashMap<>());
        emitted.addAll(classes.creates);
        emitted.addAll(classes.updates);
        for (PlanStep step : steps) {
            if (step instanceof PlanStep.CreateRemoteEndpoint && !emitted.contains(step)) {
                out.add(step);
            }
        }
        out.addAll(classes.endpointDeletes);
        return out;
    }

    /** Sorts steps into the priority classes; load-balancer steps are preceded by the endpoint creates they need. */
    private static final class Classes implements PlanStep.Visitor<Void> {
        private final Map<String, PlanStep> endpointCreates;
        final List<PlanStep> adopts = new ArrayList<>();
        final List<PlanStep> deletes = new ArrayList<>();
        final List<PlanStep> creates = new ArrayList<>();
        final List<PlanStep> updates = new ArrayList<>();
        final List<PlanStep> endpointDeletes = new ArrayList<>();

        Classes(Map<String, PlanStep> endpointCreates) {
            this.endpointCreates = endpointCreates;
        }

        public Void createRemoteEndpoint(PlanStep.CreateRemoteEndpoint step) {
            return null; // placed with the first load balancer that needs it, or after the updates
        }

        public Void adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint step) {
            adopts.add(step);
            return null;
        }

        public Void adoptLoadBalancer(PlanStep.AdoptLoadBalancer step) {
            adopts.add(step);
            return null;
        }

        public Void createLoadBalancer(PlanStep.CreateLoadBalancer step) {
            withEndpoints(step.loadBalancer(), step, endpointCreates, creates);
            return null;
        }

        public Void modifyLoadBalancer(PlanStep.ModifyLoadBalancer step) {
            withEndpoints(step.loadBalancer(), step, endpointCreates, updates);
            return null;
        }

        public Void replaceLoadBalancer(PlanStep.ReplaceLoadBalancer step) {
            withEndpoints(step.loadBalancer(), step, endpointCreates, updates);
            return null;
        }

        public Void deleteLoadBalancer(PlanStep.DeleteLoadBalancer step) {
            deletes.add(step);
            return null;
        }

        public Void deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint step) {
            endpointDeletes.add(step);
            return null;
        }
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
