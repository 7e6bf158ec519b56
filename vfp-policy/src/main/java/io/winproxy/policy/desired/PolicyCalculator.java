package io.winproxy.policy.desired;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.tracking.EndpointsMap;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServicePortMap;
import java.util.HashSet;
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
 * endpoint list (compared by identity first: {@code EndpointsMap} keeps the same list for an unchanged Service), and
 * the {@link DesiredAssembler} keeps the assembled state, updated by the changed ports only. Given the same
 * {@link ProxyState} as the last call, only the service ports it reports as changed since then are looked at
 * ({@link ProxyState#changedServicePortsSince}); otherwise every port is compared with its memo. So the work of a sync
 * is proportional to the change. When only the node network's local endpoint IPs changed (a pod came or went on this
 * node), the service ports with an endpoint at such an IP are recomputed, found by one pass over the endpoint lists;
 * any other change of the {@link NodeNetwork} recomputes everything.
 *
 * <p>Not thread-safe: one instance per sync thread. Pure: no I/O, no clock.
 */
public final class PolicyCalculator {
    private static final Logger logger = LoggerFactory.getLogger(PolicyCalculator.class);

    private PolicyConfig config;
    private final List<LoadBalancerFeature> features;
    private DesiredAssembler assembler;
    private ServicePortPolicy policy;
    private NodeNetwork lastNode;
    private ProxyState lastState;
    private long lastGeneration;
    private int lastRecomputed;

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

    /**
     * Changes the most backends one load balancer gets (a limit HNS showed while the agent runs); every service port
     * is recomputed by the next {@code calculate} when it changed.
     *
     * @return true when the limit changed
     */
    public boolean limitBackends(int max) {
        if (max <= 0 || max == config.maxBackendsPerLoadBalancer()) {
            return false;
        }
        config = config.withMaxBackendsPerLoadBalancer(max);
        assembler = null;
        return true;
    }

    /** Computes the desired state of everything in {@code state} (its input warnings included). */
    public DesiredState calculate(ProxyState state, NodeNetwork node) {
        Set<ServicePortName> candidates = null;
        if (state == lastState) {
            candidates = state.changedServicePortsSince(lastGeneration).orElse(null);
        }
        DesiredState out = calculate(state.services(), state.endpoints(), state.warnings(), node, candidates);
        lastState = state;
        lastGeneration = state.generation();
        return out;
    }

    /**
     * Computes the desired state, comparing every service port with its memo.
     *
     * @param inputWarnings warnings from input validation, carried into the result first
     */
    public DesiredState calculate(ServicePortMap services, EndpointsMap endpoints, List<PolicyWarning> inputWarnings,
                                  NodeNetwork node) {
        lastState = null;
        return calculate(services, endpoints, inputWarnings, node, null);
    }

    /** {@code candidates}: the service ports that may have changed, or null to compare every one. */
    private DesiredState calculate(ServicePortMap services, EndpointsMap endpoints, List<PolicyWarning> inputWarnings,
                                   NodeNetwork node, Set<ServicePortName> candidates) {
        Set<ServicePortName> forced = Set.of();
        if (assembler == null || !sameNode(node)) {
            Set<String> moved = assembler == null ? null : movedLocalEndpoints(lastNode, node);
            if (moved == null) {
                assembler = new DesiredAssembler();
                candidates = null;
            } else {
                forced = assembler.portsWithEndpoints(moved);
            }
            policy = new ServicePortPolicy(node, config, features);
            lastNode = node;
        }
        int recomputed = 0;
        Map<ServicePortName, ServicePortInfo> all = services.asMap();
        if (candidates == null) {
            for (ServicePortInfo svc : all.values()) {
                recomputed += update(svc.name(), svc, endpoints, forced.contains(svc.name()));
            }
            for (ServicePortName name : assembler.names()) {
                if (!all.containsKey(name)) {
                    assembler.remove(name);
                }
            }
        } else {
            Set<ServicePortName> names = new HashSet<>(candidates);
            names.addAll(forced);
            for (ServicePortName name : names) {
                ServicePortInfo svc = all.get(name);
                if (svc == null) {
                    assembler.remove(name);
                } else {
                    recomputed += update(name, svc, endpoints, forced.contains(name));
                }
            }
        }
        lastRecomputed = recomputed;
        logger.atDebug().setMessage("Policy computed").addKeyValue("servicePorts", all.size())
                .addKeyValue("lookedAt", candidates == null ? all.size() : candidates.size())
                .addKeyValue("recomputed", recomputed).log();
        return assembler.snapshot(inputWarnings);
    }

    /** Recomputes one service port unless {@code force} is false and its memo is valid; 1 when recomputed. */
    private int update(ServicePortName name, ServicePortInfo svc, EndpointsMap endpoints, boolean force) {
        List<EndpointInfo> eps = endpoints.get(name);
        DesiredAssembler.Port port = assembler.port(name);
        if (!force && port != null && (port.service == svc || port.service.equals(svc))
                && (port.endpoints == eps || port.endpoints.equals(eps))) {
            return 0;
        }
        assembler.set(name, svc, eps, policy.compute(svc, eps));
        return 1;
    }

    private boolean sameNode(NodeNetwork node) {
        return node == lastNode || node.equals(lastNode);
    }

    /**
     * The IPs that became or stopped being local HNS endpoints when the node network changed from {@code before}
     * to {@code after} and nothing else about it changed; null when something else changed. A service port's policy
     * depends on the local endpoint IPs only through its own endpoints' IPs (the SPI's features are assumed not to
     * look at them), so only the ports with such an endpoint need recomputing.
     */
    static Set<String> movedLocalEndpoints(NodeNetwork before, NodeNetwork after) {
        NodeNetwork same = new NodeNetwork(before.networkType(), before.networkName(), before.nodeName(),
                before.zone(), before.nodeIps(), before.sourceVip(), before.hostMac(), before.remoteSubnets(),
                after.localEndpointIps(), before.rootEndpointIps());
        if (!same.equals(after)) {
            return null;
        }
        Set<String> moved = new HashSet<>();
        before.localEndpointIps().stream().filter(ip -> !after.localEndpointIps().contains(ip)).forEach(moved::add);
        after.localEndpointIps().stream().filter(ip -> !before.localEndpointIps().contains(ip)).forEach(moved::add);
        return moved;
    }

    /** How many service ports the last {@code calculate} recomputed (the rest came from the memo). */
    public int lastRecomputedCount() {
        return lastRecomputed;
    }
}
