package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.net.CompactMultimap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans in proportion to what changed. After a plan whose every step succeeded, the next one looks only at the load
 * balancer keys and remote-endpoint IPs that changed: in the desired state ({@link DesiredState#changes()}), on the host
 * ({@link HostChanges}: objects that vanished, appeared or drifted), and the load balancers with a backend at a
 * changed IP (which endpoint such a backend resolves to may have changed). It runs {@link PlanCalculator}'s rules on
 * that part of the desired and observed state, so both give the same steps for it. It finds the observed part through
 * the state's {@link ObservedState.Lookup} (the endpoints at those IPs; the load balancers read from HNS documents,
 * among which every unowned one), so that a change costs what it concerns, not a pass over 100,000 endpoints; only the
 * load balancers are still walked for the changed keys (one comparison each). Everything else is planned in full:
 * the first plan, a desired state that does not follow the last one planned, a host that changed as a whole, and a
 * plan whose steps did not all succeed ({@link #completed(boolean)}).
 *
 * <p>The periodic resync is the safety net of the incremental plans, at a bounded cost: instead of planning everything,
 * it adds the next slice of a rotation over every load-balancer key and endpoint IP (desired or on the host) to what
 * changed, {@link #SLICES} slices a rotation, so each object is re-planned from scratch once per {@link #SLICES}
 * periodic resyncs (10 minutes at the default 30 s {@code syncPeriod}). The rotation's list is taken when a rotation
 * starts (one pass over the state per rotation). A slice's IPs bring in the load balancers with a backend there only
 * where the endpoints may change, so a slice costs about 1/{@link #SLICES} of a full plan.
 *
 * <p>Not thread-safe: the sync thread owns it. Pure: no I/O.
 */
public final class IncrementalPlanner {
    /** What changed on the host since the last plan; {@code everything} when it cannot be said. */
    public record HostChanges(boolean everything, Set<LoadBalancerKey> loadBalancerKeys, Set<String> ips) {
        public static final HostChanges EVERYTHING = new HostChanges(true, Set.of(), Set.of());
        public static final HostChanges NONE = new HostChanges(false, Set.of(), Set.of());
    }

    /** A rotation of periodic slices covers every key and IP in this many periodic plans. */
    public static final int SLICES = 20;

    private DesiredState lastPlanned;
    private List<LoadBalancerKey> rotationKeys = List.of();
    private List<String> rotationIps = List.of();
    private int rotationSlice = SLICES;
    private boolean lastComplete;
    /** Per backend IP of the last planned desired state: the keys of the load balancers with that backend. */
    private final CompactMultimap<String, LoadBalancerKey> keysByBackend = new CompactMultimap<>();
    private boolean lastWasFull;
    private int lastPlannedLoadBalancers;

    /** Whether the last {@link #plan} planned everything (for logs and tests). */
    public boolean lastWasFull() {
        return lastWasFull;
    }

    /** How many desired load balancers the last plan looked at (for logs and tests). */
    public int lastPlannedLoadBalancers() {
        return lastPlannedLoadBalancers;
    }

    /**
     * Plans the changes; {@code periodic} adds the next slice of the rotation (see the class comment).
     */
    public Plan plan(DesiredState desired, ObservedState observed, Ownership owned, boolean modifySupported,
                     HostChanges host, boolean periodic) {
        boolean incremental = lastPlanned != null && lastComplete && !host.everything()
                && desired.follows(lastPlanned);
        DesiredState previous = lastPlanned;
        lastPlanned = desired;
        lastComplete = false;
        lastWasFull = !incremental;
        if (!incremental) {
            lastPlannedLoadBalancers = desired.loadBalancers().size();
            rebuildIndex(desired);
            // A full plan covers everything: the rotation starts over from its state (taken here, where one more
            // pass over the state is noise, not in the next periodic resync).
            startRotation(desired, observed);
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
        if (periodic) {
            addSlice(desired, observed, keys, ips);
        }
        lastPlannedLoadBalancers = 0;
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
                lastPlannedLoadBalancers++;
            });
        }
        List<DesiredRemoteEndpoint> remotes = new ArrayList<>();
        for (String ip : relevantIps) {
            desired.remoteEndpoint(ip).ifPresent(remotes::add);
        }
        // The endpoints there and the load balancers to recheck, found through the observed state's lookup: a change
        // does not walk the 100,000 endpoints of the host, nor ask the journal about each of its load balancers.
        List<ObservedEndpoint> endpoints = observed.lookup().endpointsHolding(relevantIps);
        List<ObservedLoadBalancer> loadBalancers = new ArrayList<>();
        if (!keys.isEmpty()) {
            for (ObservedLoadBalancer lb : observed.loadBalancers()) {
                if (lb.key() != null && keys.contains(lb.key())) {
                    loadBalancers.add(lb);
                }
            }
        }
        for (ObservedLoadBalancer lb : observed.lookup().loadBalancersRead()) {
            // Unowned ones always: the endpoints they reference must not be deleted.
            if ((lb.key() == null || !keys.contains(lb.key())) && !owned.ownsLoadBalancer(lb.id())) {
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

    /**
     * Adds the next slice of the rotation. A slice's IP brings in the load balancers with a backend there only when
     * its endpoints may change (see {@link #mayMove}): each of those load balancers is in a slice of its own, so one
     * rotation still re-plans everything, and a slice costs about 1/{@link #SLICES} of a full plan instead of pulling
     * in a load balancer for nearly every IP.
     */
    private void addSlice(DesiredState desired, ObservedState observed, Set<LoadBalancerKey> keys, Set<String> ips) {
        Set<String> sliceIps = new HashSet<>();
        nextSlice(desired, observed, keys, sliceIps);
        sliceIps.removeAll(ips);
        Map<String, List<ObservedEndpoint>> held = new HashMap<>();
        for (ObservedEndpoint ep : observed.lookup().endpointsHolding(sliceIps)) {
            for (String ip : ep.ips()) {
                if (sliceIps.contains(ip)) {
                    held.computeIfAbsent(ip, k -> new ArrayList<>(1)).add(ep);
                }
            }
        }
        for (String ip : sliceIps) {
            ips.add(ip);
            if (mayMove(ip, desired, held.getOrDefault(ip, List.of()))) {
                keys.addAll(keysByBackend.get(ip));
            }
        }
    }

    /**
     * Whether planning the endpoints at {@code ip} may change which endpoint a load balancer's backend there resolves
     * to: none is there yet but one is wanted, several are, or the one there is a remote endpoint that is not wanted
     * or is stale (it is replaced or deleted, and whoever references it must move).
     */
    private static boolean mayMove(String ip, DesiredState desired, List<ObservedEndpoint> held) {
        DesiredRemoteEndpoint want = desired.remoteEndpoint(ip).orElse(null);
        if (held.size() != 1) {
            return held.size() > 1 || want != null;
        }
        ObservedEndpoint ep = held.get(0);
        return ep.remote() && (want == null || PlanCalculator.stale(ep, Map.of(ip, want)));
    }

    /** Adds the next slice of the rotation; starts a new rotation (a fresh list) after the last slice. */
    private void nextSlice(DesiredState desired, ObservedState observed, Set<LoadBalancerKey> keys, Set<String> ips) {
        if (rotationSlice >= SLICES) {
            startRotation(desired, observed);
        }
        keys.addAll(slice(rotationKeys, rotationSlice));
        ips.addAll(slice(rotationIps, rotationSlice));
        rotationSlice++;
    }

    /** A new rotation over every load-balancer key and endpoint IP, desired or on the host. */
    private void startRotation(DesiredState desired, ObservedState observed) {
        Set<LoadBalancerKey> allKeys = new java.util.LinkedHashSet<>();
        desired.loadBalancers().forEach(lb -> allKeys.add(lb.key()));
        observed.loadBalancers().forEach(lb -> {
            if (lb.key() != null) {
                allKeys.add(lb.key());
            }
        });
        Set<String> allIps = new java.util.LinkedHashSet<>();
        desired.remoteEndpoints().forEach(ep -> allIps.add(ep.ip()));
        observed.endpoints().forEach(ep -> allIps.addAll(ep.ips()));
        rotationKeys = List.copyOf(allKeys);
        rotationIps = List.copyOf(allIps);
        rotationSlice = 0;
    }

    private static <T> List<T> slice(List<T> all, int index) {
        int size = (all.size() + SLICES - 1) / SLICES;
        int from = Math.min(all.size(), index * size);
        return all.subList(from, Math.min(all.size(), from + size));
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
