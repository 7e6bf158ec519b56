package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NodeNetwork;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the host holds now, as read by the dataplane at the start of a sync: every endpoint and load balancer, and a
 * {@link Lookup} that finds the few of them a change concerns without a pass over all of them (the dataplane keeps
 * indexes across syncs; a state made from lists alone walks them). Two states are equal when their lists are.
 */
public final class ObservedState {
    public static final ObservedState EMPTY = new ObservedState(List.of(), List.of());

    /**
     * Finds parts of one observed state. Answers as a filter of {@link #endpoints()} and {@link #loadBalancers()}
     * would, at a cost proportional to what is asked and found where the implementation keeps indexes.
     */
    public interface Lookup {
        /**
         * The endpoints that hold one of {@code ips}, each once. Two of them that share an IP are in their order in
         * {@link #endpoints()} (which one a backend resolves to may depend on it); others in any order.
         */
        List<ObservedEndpoint> endpointsHolding(Set<String> ips);

        /**
         * The load balancers not described by winproxy's journal but by the document HNS returned: every one winproxy
         * does not own is among them (owned ones may be too: read again for drift, or without a fingerprint).
         */
        List<ObservedLoadBalancer> loadBalancersRead();
    }

    private final List<ObservedEndpoint> endpoints;
    private final List<ObservedLoadBalancer> loadBalancers;
    private final Lookup lookup;

    /** A state whose {@link #lookup()} walks the lists. */
    public ObservedState(List<ObservedEndpoint> endpoints, List<ObservedLoadBalancer> loadBalancers) {
        this(endpoints, loadBalancers, null);
    }

    /**
     * @param lookup answers for these lists (the caller's promise); null for one that walks them
     */
    public ObservedState(List<ObservedEndpoint> endpoints, List<ObservedLoadBalancer> loadBalancers, Lookup lookup) {
        this.endpoints = List.copyOf(endpoints);
        this.loadBalancers = List.copyOf(loadBalancers);
        this.lookup = lookup != null ? lookup : new Walk(this.endpoints, this.loadBalancers);
    }

    public List<ObservedEndpoint> endpoints() {
        return endpoints;
    }

    public List<ObservedLoadBalancer> loadBalancers() {
        return loadBalancers;
    }

    public Lookup lookup() {
        return lookup;
    }

    /** The endpoints by ID. */
    public Map<String, ObservedEndpoint> endpointsById() {
        Map<String, ObservedEndpoint> out = new LinkedHashMap<>();
        endpoints.forEach(ep -> out.put(ep.id(), ep));
        return out;
    }

    /** The endpoints of {@code all} that hold one of {@code ips}, in their order there: a {@link Lookup} by a walk. */
    public static List<ObservedEndpoint> holding(Collection<ObservedEndpoint> all, Set<String> ips) {
        List<ObservedEndpoint> out = new ArrayList<>();
        if (ips.isEmpty()) {
            return out;
        }
        for (ObservedEndpoint ep : all) {
            for (String ip : ep.ips()) {
                if (ips.contains(ip)) {
                    out.add(ep);
                    break;
                }
            }
        }
        return out;
    }

    /** The lookup of a state made from lists: walks them. */
    private record Walk(List<ObservedEndpoint> endpoints, List<ObservedLoadBalancer> loadBalancers) implements Lookup {
        @Override
        public List<ObservedEndpoint> endpointsHolding(Set<String> ips) {
            return holding(endpoints, ips);
        }

        @Override
        public List<ObservedLoadBalancer> loadBalancersRead() {
            return loadBalancers;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObservedState other && endpoints.equals(other.endpoints)
                && loadBalancers.equals(other.loadBalancers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(endpoints, loadBalancers);
    }

    @Override
    public String toString() {
        return "ObservedState[endpoints=" + endpoints + ", loadBalancers=" + loadBalancers + "]";
    }

    /**
     * The host as it would be if {@code desired} were programmed on a network with {@code node}'s local endpoints:
     * local endpoints {@code local-1..}, remote endpoints {@code remote-1..}, load balancers {@code lb-1..}
     * (synthetic IDs, in order). Lets the packet tracer answer for a manifests directory.
     */
    public static ObservedState fromDesired(DesiredState desired, NodeNetwork node) {
        List<ObservedEndpoint> eps = new ArrayList<>();
        Map<String, String> idByIp = new LinkedHashMap<>();
        int n = 0;
        TreeSet<String> localIps = new TreeSet<>(node.localEndpointIps());
        localIps.addAll(node.rootEndpointIps());
        for (String ip : localIps) {
            String id = "local-" + (++n);
            eps.add(ObservedEndpoint.local(id, ip));
            idByIp.put(ip, id);
        }
        n = 0;
        for (DesiredRemoteEndpoint r : desired.remoteEndpoints()) {
            if (idByIp.containsKey(r.ip())) {
                continue;
            }
            String id = "remote-" + (++n);
            eps.add(ObservedEndpoint.remote(id, r.ip(), r.providerAddress()));
            idByIp.put(r.ip(), id);
        }
        List<ObservedLoadBalancer> lbs = new ArrayList<>();
        n = 0;
        for (DesiredLoadBalancer lb : desired.loadBalancers()) {
            List<String> ids = new ArrayList<>();
            List<String> ips = new ArrayList<>();
            for (String ip : lb.backends()) {
                String id = idByIp.get(ip);
                if (id != null) {
                    ids.add(id);
                    ips.add(ip);
                }
            }
            lbs.add(new ObservedLoadBalancer("lb-" + (++n), lb.key(), lb.internalPort(), ids, ips, lb.sourceVip(),
                    lb.flags(), lb.portMappingFlags(), lb.distributionType()));
        }
        return new ObservedState(eps, lbs);
    }
}
