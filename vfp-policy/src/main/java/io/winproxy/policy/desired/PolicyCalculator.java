package io.winproxy.policy.desired;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.tracking.EndpointsMap;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServicePortMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes the {@link DesiredState} of the host from the proxy's service and endpoint maps: the load balancers and
 * remote endpoints of every service port and IP family (winkernel-semantics §3.3-§3.4, with the differences of
 * ARCHITECTURE.md §3), plus warnings.
 *
 * <p><b>Incremental.</b> The result of each service port is memoised, keyed by its {@link ServicePortInfo} and its
 * endpoint list (compared by identity first: {@code EndpointsMap} keeps the same list for an unchanged Service).
 * Each call recomputes only the service ports whose inputs changed, so work is proportional to the change plus one
 * map walk; a change of the {@link NodeNetwork} (e.g. a new local endpoint) invalidates everything.
 *
 * <p>Not thread-safe: one instance per sync thread. Pure: no I/O, no clock.
 */
public final class PolicyCalculator {
    private static final Logger logger = LoggerFactory.getLogger(PolicyCalculator.class);
    private static final Comparator<ServicePortName> NAME_ORDER = Comparator.comparing(ServicePortName::namespace)
            .thenComparing(ServicePortName::name).thenComparing(ServicePortName::port)
            .thenComparing(ServicePortName::protocol);

    private final PolicyConfig config;
    private final List<LoadBalancerFeature> features;
    private final Map<ServicePortName, Memo> memo = new HashMap<>();
    private NodeNetwork lastNode;
    private int lastRecomputed;

    private record Memo(ServicePortInfo service, List<EndpointInfo> endpoints, ServicePortPolicy.Result result) {
    }

    /**
     * @param config   proxy settings and HNS capabilities
     * @param features load-balancer features (e.g. DSR), consulted in order
     */
    public PolicyCalculator(PolicyConfig config, List<LoadBalancerFeature> features) {
        this.config = config;
        this.features = List.copyOf(features);
    }

    public PolicyConfig config() {
        return config;
    }

    /** Computes the desired state of everything in {@code state} (its input warnings included). */
    public DesiredState calculate(ProxyState state, NodeNetwork node) {
        return calculate(state.services(), state.endpoints(), state.warnings(), node);
    }

    /**
     * Computes the desired state.
     *
     * @param inputWarnings warnings from input validation, carried into the result first
     */
    public DesiredState calculate(ServicePortMap services, EndpointsMap endpoints, List<PolicyWarning> inputWarnings,
                                  NodeNetwork node) {
        if (!node.equals(lastNode)) {
            memo.clear();
            lastNode = node;
        }
        ServicePortPolicy policy = new ServicePortPolicy(node, config, features);
        List<ServicePortName> names = new ArrayList<>(services.asMap().keySet());
        names.sort(NAME_ORDER);
        int recomputed = 0;
        Set<ServicePortName> live = new HashSet<>();
        List<ServicePortPolicy.Result> results = new ArrayList<>(names.size());
        for (ServicePortName name : names) {
            ServicePortInfo svc = services.asMap().get(name);
            List<EndpointInfo> eps = endpoints.get(name);
            live.add(name);
            Memo m = memo.get(name);
            if (m == null || !m.service().equals(svc) || (m.endpoints() != eps && !m.endpoints().equals(eps))) {
                m = new Memo(svc, eps, policy.compute(svc, eps));
                memo.put(name, m);
                recomputed++;
            }
            results.add(m.result());
        }
        memo.keySet().retainAll(live);
        lastRecomputed = recomputed;
        logger.debug("Policy for {} service ports, {} recomputed", names.size(), recomputed);
        return assemble(results, inputWarnings);
    }

    /** How many service ports the last {@code calculate} recomputed (the rest came from the memo). */
    public int lastRecomputedCount() {
        return lastRecomputed;
    }

    private DesiredState assemble(List<ServicePortPolicy.Result> results, List<PolicyWarning> inputWarnings) {
        LinkedHashSet<PolicyWarning> warnings = new LinkedHashSet<>(inputWarnings);
        Map<LoadBalancerKey, DesiredLoadBalancer> byKey = new LinkedHashMap<>();
        Map<String, DesiredRemoteEndpoint> clusterIpEndpoints = new LinkedHashMap<>();
        Map<String, DesiredRemoteEndpoint> backendEndpoints = new LinkedHashMap<>();
        for (ServicePortPolicy.Result result : results) {
            warnings.addAll(result.warnings());
            for (DesiredLoadBalancer lb : result.loadBalancers()) {
                DesiredLoadBalancer existing = byKey.get(lb.key());
                if (existing == null) {
                    byKey.put(lb.key(), lb);
                } else if (!sameExceptService(existing, lb)) {
                    warnings.add(new PolicyWarning("Service", lb.service().namespace(), lb.service().name(),
                            "LoadBalancerConflict", lb.kind().displayName() + " " + lb.key()
                            + " is already used by Service " + existing.service() + "; not programmed"));
                }
            }
        }
        Set<String> referenced = new HashSet<>();
        byKey.values().forEach(lb -> referenced.addAll(lb.backends()));
        for (ServicePortPolicy.Result result : results) {
            for (DesiredRemoteEndpoint ep : result.remoteEndpoints()) {
                if (referenced.contains(ep.ip())) {
                    backendEndpoints.putIfAbsent(ep.ip(), ep);
                }
            }
            result.clusterIpEndpoints().forEach(ep -> clusterIpEndpoints.putIfAbsent(ep.ip(), ep));
        }
        // Insertion order (cluster-IP endpoints, then backends, each in service order) is deterministic; sorting the
        // endpoints of a large cluster by IP dominated every sync.
        Map<String, DesiredRemoteEndpoint> remotes = new LinkedHashMap<>(clusterIpEndpoints);
        backendEndpoints.forEach(remotes::putIfAbsent);
        List<DesiredLoadBalancer> lbs = new ArrayList<>(byKey.values());
        return new DesiredState(lbs, new ArrayList<>(remotes.values()), new ArrayList<>(warnings));
    }

    private static boolean sameExceptService(DesiredLoadBalancer a, DesiredLoadBalancer b) {
        return a.service().serviceKey().equals(b.service().serviceKey()) && a.kind() == b.kind()
                && a.internalPort() == b.internalPort() && a.backends().equals(b.backends())
                && a.sourceVip().equals(b.sourceVip()) && a.flags() == b.flags()
                && a.portMappingFlags() == b.portMappingFlags() && a.distributionType() == b.distributionType();
    }
}
