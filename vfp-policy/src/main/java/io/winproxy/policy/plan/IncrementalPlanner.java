package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Plans in proportion to what changed. After a plan whose every step succeeded, the next one looks only at the load
 * balancer keys and remote-endpoint IPs that changed: in the desired state ({@link DesiredState#changes()}), on the host
 * ({@link HostChanges}: objects that vanished, appeared or drifted), and the load balancers with a backend at a
 * changed IP (which endpoint such a backend resolves to may have changed). It runs {@link PlanCalculator}'s rules on
 * that part of the desired and observed state, so both give the same steps for it. Everything else is planned in full:
 * the first plan, a desired state that does not follow the last one planned, a host that changed as a whole, a plan
 * whose steps did not all succeed ({@link #completed(boolean)}), and whenever the caller asks (the periodic resync).
 *
 * <p>Not thread-safe: the sync thread owns it. Pure: no I/O.
 */
public final class IncrementalPlanner {
    /** What changed on the host since the last plan; {@code everything} when it cannot be said. */
    public record HostChanges(boolean everything, Set<LoadBalancerKey> loadBalancerKeys, Set<String> ips) {
        public static final HostChanges EVERYTHING = new HostChanges(true, Set.of(), Set.of());
        public static final HostChanges NONE = new HostChanges(false, Set.of(), Set.of());
    }

    private DesiredState lastPlanned;
    private boolean lastComplete;
    /** Per backend IP of the last planned desired state: the keys of the load balancers with that backend. */
    private final CompactMultimap<String, LoadBalancerKey> keysByBackend = new CompactMultimap<>();
    private boolean lastWasFull;

    /** Whether the last {@link #plan} planned everything (for logs and tests). */
    public boolean lastWasFull() {
        return lastWasFull;
    }

    /**
     * Plans the changes; {@code full} forces a full plan.
     */
    public Plan plan(DesiredState desired, ObservedState observed, Ownership owned, boolean modifySupported,
                     HostChanges host, boolean full) {
        boolean incremental = !full && lastPlanned != null && lastComplete && !host.everything()
                && desired.follows(lastPlanned);
        DesiredState previous = lastPlanned;
        lastPlanned = desired;
        lastComplete = false;
        lastWasFull = !incremental;
        if (!incremental) {
            rebuildIndex(desired);
            return PlanCalculator.plan(desired, observed, owned, modifySupported);
        }
        DesiredState.Changes changes = desired.changes();
        Set<LoadBalancerKey> keys = new HashSet<>(changes.loadBalancerKeys());
        keys.addAll(host.loadBalancerKeys());
        Set<String> ips = new HashSet<>(changes.remoteEndpointIps());
        ips.addAll(host.ips());
        for (LoadBalancerKey key : changes.loadBalancerKeys()) {
            previous.loadBalancer(key).ifPresent(lb -> unindex(lb));
            desired.loadBalancer(key).ifPresent(lb -> index(lb));
        }
        for (String ip : ips) {
            keys.addAll(keysByBackend.get(ip));
        }
        if (keys.isEmpty() && ips.isEmpty()) {
            return new Plan(List.of(), List.of());
        }
        // The IPs whose endpoints matter: the changed ones and every backend of a load balancer to recheck.
        Set<String> relevantIps = new HashSet<>(ips);
        List<DesiredLoadBalancer> lbs = new ArrayList<>();
        for (LoadBalancerKey key : keys) {
            desired.loadBalancer(key).ifPresent(lb -> {
                lbs.add(lb);
                relevantIps.addAll(lb.backends());
            });
        }
        List<DesiredRemoteEndpoint> remotes = new ArrayList<>();
        for (String ip : relevantIps) {
            desired.remoteEndpoint(ip).ifPresent(remotes::add);
        }
        List<ObservedEndpoint> endpoints = new ArrayList<>();
        for (ObservedEndpoint ep : observed.endpoints()) {
            for (String ip : ep.ips()) {
                if (relevantIps.contains(ip)) {
                    endpoints.add(ep);
                    break;
                }
            }
        }
        List<ObservedLoadBalancer> loadBalancers = new ArrayList<>();
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            // Unowned ones always: the endpoints they reference must not be deleted.
            if ((lb.key() != null && keys.contains(lb.key())) || !owned.ownsLoadBalancer(lb.id())) {
                loadBalancers.add(lb);
            }
        }
        return PlanCalculator.plan(new DesiredState(lbs, remotes, List.of()),
                new ObservedState(endpoints, loadBalancers), owned, modifySupported);
    }

    /** Reports whether every step of the last plan succeeded; if not, the next plan is a full one. */
    public void completed(boolean allStepsSucceeded) {
        lastComplete = allStepsSucceeded;
    }

    private void rebuildIndex(DesiredState desired) {
        keysByBackend.clear();
        for (DesiredLoadBalancer lb : desired.loadBalancers()) {
            index(lb);
        }
    }

    private void index(DesiredLoadBalancer lb) {
        for (String ip : lb.backends()) {
            keysByBackend.add(ip, lb.key());
        }
    }

    private void unindex(DesiredLoadBalancer lb) {
        for (String ip : lb.backends()) {
            keysByBackend.removeIf(ip, lb.key()::equals);
        }
    }
}
