package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
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
            classes.of(step.accept(classes)).add(step);
        }
        // Endpoint creates a load balancer claimed went with it; the others keep their place in their class.
        Set<PlanStep> claimed = Collections.newSetFromMap(new IdentityHashMap<>());
        claimed.addAll(classes.of(Priority.CREATE));
        claimed.addAll(classes.of(Priority.UPDATE));
        classes.of(Priority.ENDPOINT_CREATE).removeIf(claimed::contains);
        List<PlanStep> out = new ArrayList<>(steps.size());
        for (Priority priority : Priority.values()) {
            out.addAll(classes.of(priority));
        }
        return out;
    }

    /** The priority classes, in execution order (see above). */
    private enum Priority {
        ADOPTION, DELETION, CREATE, UPDATE, ENDPOINT_CREATE, ENDPOINT_DELETION
    }

    /**
     * Sorts steps into the priority classes: a visit answers the class of a step. A load-balancer create or update
     * first moves the endpoint creates it needs into its own class.
     */
    private static final class Classes implements PlanStep.Visitor<Priority> {
        private final Map<String, PlanStep> unclaimedEndpointCreates;
        private final Map<Priority, List<PlanStep>> classes = new EnumMap<>(Priority.class);

        Classes(Map<String, PlanStep> unclaimedEndpointCreates) {
            this.unclaimedEndpointCreates = unclaimedEndpointCreates;
        }

        List<PlanStep> of(Priority priority) {
            return classes.computeIfAbsent(priority, p -> new ArrayList<>());
        }

        public Priority createRemoteEndpoint(PlanStep.CreateRemoteEndpoint step) {
            return Priority.ENDPOINT_CREATE;
        }

        public Priority adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint step) {
            return Priority.ADOPTION;
        }

        public Priority adoptLoadBalancer(PlanStep.AdoptLoadBalancer step) {
            return Priority.ADOPTION;
        }

        public Priority createLoadBalancer(PlanStep.CreateLoadBalancer step) {
            return withEndpoints(step.loadBalancer(), Priority.CREATE);
        }

        public Priority modifyLoadBalancer(PlanStep.ModifyLoadBalancer step) {
            return withEndpoints(step.loadBalancer(), Priority.UPDATE);
        }

        public Priority replaceLoadBalancer(PlanStep.ReplaceLoadBalancer step) {
            return withEndpoints(step.loadBalancer(), Priority.UPDATE);
        }

        public Priority deleteLoadBalancer(PlanStep.DeleteLoadBalancer step) {
            return Priority.DELETION;
        }

        public Priority deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint step) {
            return Priority.ENDPOINT_DELETION;
        }

        /** Adds the endpoint creates {@code lb}'s backends need (once, the first time) to {@code priority}'s class. */
        private Priority withEndpoints(DesiredLoadBalancer lb, Priority priority) {
            for (String ip : lb.backends()) {
                PlanStep create = unclaimedEndpointCreates.remove(ip);
                if (create != null) {
                    of(priority).add(create);
                }
            }
            return priority;
        }
    }
}
