package io.winproxy.policy.spi;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.PolicyWarning;
import java.util.List;

/**
 * An extension of the load-balancer policy (e.g. Direct Server Return, implemented in the {@code dsr} module). The
 * {@code PolicyCalculator} consults every feature, in list order, for each service port and IP family:
 * <ol>
 *   <li>{@link #excludeRemoteEndpoints}: when any feature says so, endpoints on other nodes are not programmed at all
 *       (no remote HNS endpoints, no remote backends in any load balancer);</li>
 *   <li>{@link #localBackendsOnly}: per load-balancer kind, when any feature says so, the load balancer uses only
 *       this node's endpoints;</li>
 *   <li>{@link #adjust}: each desired load balancer is passed through every feature in turn (flags, port-mapping
 *       flags; a feature must not change the key or the backends);</li>
 *   <li>{@link #warnings}: extra warnings about the service port.</li>
 * </ol>
 * Implementations must be pure and deterministic (same inputs, same answers): the calculator memoises per
 * service port. They must be safe to call from one thread at a time; no synchronisation is needed.
 */
public interface LoadBalancerFeature {

    /** A short name for logs ("dsr"). */
    String name();

    /** True when endpoints on other nodes must not be programmed for this service port. */
    default boolean excludeRemoteEndpoints(ServicePortContext context) {
        return false;
    }

    /** True when the load balancer of {@code kind} must use only this node's endpoints. */
    default boolean localBackendsOnly(ServicePortContext context, LoadBalancerKind kind) {
        return false;
    }

    /** Returns {@code loadBalancer}, possibly with other flags (e.g. {@code withFlags(...)}). */
    default DesiredLoadBalancer adjust(ServicePortContext context, DesiredLoadBalancer loadBalancer) {
        return loadBalancer;
    }

    /** Warnings about the service port (e.g. "externalTrafficPolicy Local without HNS DSR support"). */
    default List<PolicyWarning> warnings(ServicePortContext context) {
        return List.of();
    }
}
