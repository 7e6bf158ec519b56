package io.winproxy.agent.dataplane;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.plan.EndpointResolver;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The HNS endpoint each backend of a load balancer references during one apply: an {@link EndpointResolver} over the
 * observed endpoints that hold a backend IP of one of the plan's load-balancer steps, found through the observed
 * state's lookup (a sync for one change must not walk 100,000 endpoints) before the apply writes anything
 * ({@link #prepare}; plans without load-balancer steps need none), and kept current as the apply creates, adopts and
 * deletes endpoints. Resolves with the plan's provider addresses, so that the fingerprints recorded are the ones the
 * next plan computes.
 *
 * <p>Used once, by the sync thread.
 */
final class BackendRefs {
    private final Plan plan;
    private final ObservedState observed;
    private final OwnershipJournal journal;
    private final Set<String> deleted = new HashSet<>();
    private EndpointResolver resolver;
    /** The backend IPs the resolver holds endpoints for: those of the plan's load-balancer steps. */
    private Set<String> indexedIps;

    BackendRefs(Plan plan, ObservedState observed, OwnershipJournal journal) {
        this.plan = plan;
        this.observed = observed;
        this.journal = journal;
    }

    /**
     * Finds the endpoints of the plan's load balancers' backends, if it has any: before the apply writes, while the
     * observed state's lookup answers from its indexes.
     */
    void prepare() {
        for (PlanStep step : plan.steps()) {
            if (step instanceof PlanStep.LoadBalancerStep) {
                resolver();
                return;
            }
        }
    }

    /** An endpoint created or adopted by this apply (owned). */
    void owned(ObservedEndpoint endpoint, boolean replacing) {
        if (replacing && resolver == null) {
            return; // built later from the observed list and the journal, which already say so
        }
        if (replacing) {
            resolver.remove(endpoint.id(), endpoint.ips());
        }
        resolver().add(endpoint, true);
    }

    /** An endpoint deleted by this apply. */
    void deleted(String id, String ip) {
        if (resolver != null) {
            resolver.remove(id, List.of(ip));
        }
        deleted.add(id);
    }

    private EndpointResolver resolver() {
        if (resolver == null) {
            resolver = new EndpointResolver(plan.providerAddresses());
            indexedIps = new HashSet<>();
            List<String> backends = new ArrayList<>();
            for (PlanStep step : plan.steps()) {
                if (step instanceof PlanStep.LoadBalancerStep lb) {
                    backends.addAll(lb.loadBalancer().backends());
                }
            }
            index(backends);
            for (PlanStep step : plan.steps()) {
                if (step instanceof PlanStep.DeleteRemoteEndpoint s) {
                    resolver.retire(s.id());
                }
            }
        }
        return resolver;
    }

    /** Adds the observed endpoints (not deleted by this apply) that hold one of {@code backends} not indexed yet. */
    private void index(List<String> backends) {
        Set<String> more = new HashSet<>(backends);
        more.removeAll(indexedIps);
        indexedIps.addAll(more);
        for (ObservedEndpoint ep : observed.lookup().endpointsHolding(more)) {
            if (!deleted.contains(ep.id())) {
                resolver.add(ep, journal.ownsRemoteEndpoint(ep.id()));
            }
        }
    }

    /** Per backend: the endpoint it resolves to now, or "". */
    List<String> refs(DesiredLoadBalancer desired) {
        EndpointResolver resolver = resolver();
        if (!indexedIps.containsAll(desired.backends())) {
            index(desired.backends()); // not one of the plan's steps (no caller does this today)
        }
        List<String> refs = new ArrayList<>(desired.backends().size());
        for (String ip : desired.backends()) {
            String id = resolver.resolve(ip);
            refs.add(id == null ? "" : id);
        }
        return refs;
    }

    /**
     * The endpoint IDs of the backends that have one, in backend order.
     *
     * @throws UnresolvedBackendsException when no backend has one
     */
    static List<String> resolved(DesiredLoadBalancer desired, List<String> refs) {
        List<String> ids = new ArrayList<>(refs.size());
        for (String ref : refs) {
            if (!ref.isEmpty()) {
                ids.add(ref);
            }
        }
        if (ids.isEmpty() && !desired.backends().isEmpty()) {
            throw new UnresolvedBackendsException("no HNS endpoint for any backend " + summary(desired.backends()));
        }
        return ids;
    }

    /** @throws UnresolvedBackendsException naming the backends programmed without an endpoint */
    static void checkAllResolved(DesiredLoadBalancer desired, List<String> refs) {
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
            if (refs.get(i).isEmpty()) {
                missing.add(desired.backends().get(i));
            }
        }
        if (!missing.isEmpty()) {
            throw new UnresolvedBackendsException("programmed without backends that have no HNS endpoint yet "
                    + summary(missing));
        }
    }

    /** A backend list for a log line: up to 8 IPs listed, a longer list summarised as its size ("1000 backends"). */
    static String summary(List<String> ips) {
        if (ips.size() <= 8) {
            return ips.toString();
        }
        return ips.size() + " backends";
    }
}
