package io.winproxy.policy.desired;

import io.winproxy.policy.model.ServicePortName;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The immutable snapshot of what winproxy wants on the host: load balancers, remote endpoints and warnings, each list
 * in a deterministic order.
 *
 * <p>A {@link PolicyCalculator} builds each state from the previous one, sharing what did not change: the lists are
 * assembled on first use, {@link #loadBalancer(LoadBalancerKey)} and {@link #remoteEndpoint(String)} are cheap lookups,
 * and {@link #changes()} says what differs from the calculator's previous state, so a consumer that applied that
 * state can look at the changed keys and IPs only ({@link #follows(DesiredState)} tells whether it may).
 *
 * <p>Immutable and thread-safe.
 */
public final class DesiredState {
    /**
     * What differs from the previous state of the same calculator.
     *
     * @param everything        true when there is no usable previous state (the calculator's first state, a new node
     *                          network, or a state built from lists): recheck everything; the sets are then empty
     * @param servicePorts      the service ports whose share of the state changed: load balancers, remote endpoints
     *                          or warnings (including ports that appeared or went away)
     * @param loadBalancerKeys  the keys whose desired load balancer appeared, went away or differs
     * @param remoteEndpointIps the IPs whose desired remote endpoint appeared, went away or differs. A load balancer
     *                          with such a backend IP may need its backends resolved again on the host (e.g. the IP
     *                          is now a local endpoint, or a new provider address) even when its key is not listed
     */
    public record Changes(boolean everything, Set<ServicePortName> servicePorts, Set<LoadBalancerKey> loadBalancerKeys,
                          Set<String> remoteEndpointIps) {
        public static final Changes EVERYTHING = new Changes(true, Set.of(), Set.of(), Set.of());

        public Changes {
            servicePorts = Set.copyOf(servicePorts);
            loadBalancerKeys = Set.copyOf(loadBalancerKeys);
            remoteEndpointIps = Set.copyOf(remoteEndpointIps);
        }

        /** True when nothing differs from the previous state. */
        public boolean isEmpty() {
            return !everything && servicePorts.isEmpty() && loadBalancerKeys.isEmpty() && remoteEndpointIps.isEmpty();
        }
    }

    private final DesiredAssembler.Contribution[] shares;
    private final List<PolicyWarning> warnings;
    private final PersistentMap<LoadBalancerKey, DesiredLoadBalancer> loadBalancersByKey;
    private final PersistentMap<String, DesiredRemoteEndpoint> remoteEndpointsByIp;
    private final Changes changes;
    private final Object token;
    private final Object previousToken;
    // made on first use; a racy but safe publication: each is immutable and reached through final fields
    private List<DesiredLoadBalancer> loadBalancers;
    private List<DesiredRemoteEndpoint> remoteEndpoints;
    private Map<LoadBalancerKey, DesiredLoadBalancer> listedByKey;
    private Map<String, DesiredRemoteEndpoint> listedByIp;

    /** A state of the given lists (tools and tests); its {@link #changes()} are {@link Changes#EVERYTHING}. */
    public DesiredState(List<DesiredLoadBalancer> loadBalancers, List<DesiredRemoteEndpoint> remoteEndpoints,
                        List<PolicyWarning> warnings) {
        this.loadBalancers = List.copyOf(loadBalancers);
        this.remoteEndpoints = List.copyOf(remoteEndpoints);
        this.warnings = List.copyOf(warnings);
        this.shares = null;
        this.loadBalancersByKey = null;
        this.remoteEndpointsByIp = null;
        this.changes = Changes.EVERYTHING;
        this.token = new Object();
        this.previousToken = null;
    }

    /** A state of a calculator ({@link DesiredAssembler}); {@code shares} are in assembly order. */
    DesiredState(DesiredAssembler.Contribution[] shares, List<PolicyWarning> warnings,
                 PersistentMap<LoadBalancerKey, DesiredLoadBalancer> loadBalancersByKey,
                 PersistentMap<String, DesiredRemoteEndpoint> remoteEndpointsByIp, Changes changes, Object token,
                 Object previousToken) {
        this.shares = shares;
        this.warnings = warnings;
        this.loadBalancersByKey = loadBalancersByKey;
        this.remoteEndpointsByIp = remoteEndpointsByIp;
        this.changes = changes;
        this.token = token;
        this.previousToken = previousToken;
    }

    /** Every desired load balancer, one per key, in service-port order. */
    public List<DesiredLoadBalancer> loadBalancers() {
        List<DesiredLoadBalancer> out = loadBalancers;
        if (out == null) {
            Object[] all = new Object[loadBalancersByKey.size()];
            int n = 0;
            for (DesiredAssembler.Contribution share : shares) {
                n = copy(share.loadBalancers(), all, n);
            }
            out = list(all, n);
            loadBalancers = out;
        }
        return out;
    }

    /** Every desired remote endpoint, one per IP: the overlay ClusterIP endpoints, then backends, each in order. */
    public List<DesiredRemoteEndpoint> remoteEndpoints() {
        List<DesiredRemoteEndpoint> out = remoteEndpoints;
        if (out == null) {
            Object[] all = new Object[remoteEndpointsByIp.size()];
            int n = 0;
            for (DesiredAssembler.Contribution share : shares) {
                n = copy(share.clusterIpEndpoints(), all, n);
            }
            for (DesiredAssembler.Contribution share : shares) {
                n = copy(share.backendEndpoints(), all, n);
            }
            out = list(all, n);
            remoteEndpoints = out;
        }
        return out;
    }

    private static int copy(List<?> from, Object[] to, int at) {
        for (int i = 0; i < from.size(); i++) {
            to[at + i] = from.get(i);
        }
        return at + from.size();
    }

    /** An unmodifiable list of the array (one per key or IP, so exactly full). */
    @SuppressWarnings("unchecked")
    private static <T> List<T> list(Object[] all, int n) {
        if (n != all.length) {
            throw new IllegalStateException("assembled " + n + " entries for " + all.length + " keys");
        }
        return (List<T>) Collections.unmodifiableList(Arrays.asList(all));
    }

    /** The warnings: input warnings first, then per service port, without repeats. */
    public List<PolicyWarning> warnings() {
        return warnings;
    }

    /** The desired load balancer with {@code key}, if any. */
    public Optional<DesiredLoadBalancer> loadBalancer(LoadBalancerKey key) {
        if (loadBalancersByKey != null) {
            return Optional.ofNullable(loadBalancersByKey.get(key));
        }
        Map<LoadBalancerKey, DesiredLoadBalancer> byKey = listedByKey;
        if (byKey == null) {
            byKey = firstByKey(loadBalancers, DesiredLoadBalancer::key);
            listedByKey = byKey;
        }
        return Optional.ofNullable(byKey.get(key));
    }

    /** The desired remote endpoint of {@code ip}, if any. */
    public Optional<DesiredRemoteEndpoint> remoteEndpoint(String ip) {
        if (remoteEndpointsByIp != null) {
            return Optional.ofNullable(remoteEndpointsByIp.get(ip));
        }
        Map<String, DesiredRemoteEndpoint> byIp = listedByIp;
        if (byIp == null) {
            byIp = firstByKey(remoteEndpoints, DesiredRemoteEndpoint::ip);
            listedByIp = byIp;
        }
        return Optional.ofNullable(byIp.get(ip));
    }

    /** An immutable index of {@code items} by {@code key}; the first item with a key wins. */
    private static <K, V> Map<K, V> firstByKey(List<V> items, Function<V, K> key) {
        Map<K, V> index = new HashMap<>();
        for (V item : items) {
            index.putIfAbsent(key.apply(item), item);
        }
        return Map.copyOf(index);
    }

    /** What differs from the previous state of the calculator that made this one. */
    public Changes changes() {
        return changes;
    }

    /**
     * True when {@link #changes()} are relative to {@code previous}: it is the state the same calculator made just
     * before this one, and this one does not say {@link Changes#everything()}. A consumer that applied
     * {@code previous} then needs to look only at the changed keys and IPs; else it must recheck everything.
     */
    public boolean follows(DesiredState previous) {
        return previous != null && !changes.everything() && previousToken == previous.token;
    }

    /** Equal when the lists are equal (in order). */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof DesiredState other && loadBalancers().equals(other.loadBalancers())
                && remoteEndpoints().equals(other.remoteEndpoints()) && warnings.equals(other.warnings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(loadBalancers(), remoteEndpoints(), warnings);
    }

    @Override
    public String toString() {
        return "DesiredState[loadBalancers=" + loadBalancers() + ", remoteEndpoints=" + remoteEndpoints()
                + ", warnings=" + warnings + "]";
    }
}
