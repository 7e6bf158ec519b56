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
            step.accept(classes).add(step);
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
        classes.endpointCreates.stream().filter(step -> !emitted.contains(step)).forEach(out::add);
        out.addAll(classes.endpointDeletes);
        return out;
    }

    /**
     * Sorts steps into the priority classes: each visit answers the list the step belongs at the end of. A
     * load-balancer create or update first pulls in the endpoint creates it needs.
     */
    private static final class Classes implements PlanStep.Visitor<List<PlanStep>> {
        private final Map<String, PlanStep> unclaimedEndpointCreates;
        final List<PlanStep> adopts = new ArrayList<>();
        final List<PlanStep> deletes = new ArrayList<>();
        final List<PlanStep> creates = new ArrayList<>();
        final List<PlanStep> updates = new ArrayList<>();
        /** Every endpoint create in plan order; those a load balancer claimed are emitted with it instead. */
        final List<PlanStep> endpointCreates = new ArrayList<>();
        final List<PlanStep> endpointDeletes = new ArrayList<>();

        Classes(Map<String, PlanStep> unclaimedEndpointCreates) {
            this.unclaimedEndpointCreates = unclaimedEndpointCreates;
        }

        public List<PlanStep> createRemoteEndpoint(PlanStep.CreateRemoteEndpoint step) {
            return endpointCreates;
        }

        public List<PlanStep> adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint step) {
            return adopts;
        }

        public List<PlanStep> adoptLoadBalancer(PlanStep.AdoptLoadBalancer step) {
            return adopts;
        }

        public List<PlanStep> createLoadBalancer(PlanStep.CreateLoadBalancer step) {
            return withEndpoints(step.loadBalancer(), creates);
        }

        public List<PlanStep> modifyLoadBalancer(PlanStep.ModifyLoadBalancer step) {
            return withEndpoints(step.loadBalancer(), updates);
        }

        public List<PlanStep> replaceLoadBalancer(PlanStep.ReplaceLoadBalancer step) {
            return withEndpoints(step.loadBalancer(), updates);
        }

        public List<PlanStep> deleteLoadBalancer(PlanStep.DeleteLoadBalancer step) {
            return deletes;
        }

        public List<PlanStep> deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint step) {
            return endpointDeletes;
        }

        /** Adds the endpoint creates {@code lb}'s backends need (once, the first time) to {@code into}; returns it. */
        private List<PlanStep> withEndpoints(DesiredLoadBalancer lb, List<PlanStep> into) {
            for (String ip : lb.backends()) {
                PlanStep create = unclaimedEndpointCreates.remove(ip);
                if (create != null) {
                    into.add(create);
                }
            }
            return into;
        }
    }
}
