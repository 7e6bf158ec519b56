package io.winproxy.policy.desired;

import java.util.Set;

/**
 * The proxy settings and HNS capabilities the policy depends on; a plain value built once by the agent.
 *
 * @param forwardHealthCheckVip             {@code --forward-healthcheck-vip}: a health-check LB per ingress IP
 * @param healthzPort                       the port of {@code --healthz-bind-address} (health-check LB port when a
 *                                          Service has no healthCheckNodePort)
 * @param hnsSupportsDsr                    HNS DSR support
 * @param hnsSupportsIpv6DualStack          HNS IPv6/dual-stack support (HNS 11.10+)
 * @param hnsSupportsSessionAffinity        HNS session affinity support (HNS 12.0+)
 * @param hnsSupportsModifyLoadBalancer     HNS in-place LB update (HNS 15.4+)
 * @param enabledFeatures                   enabled feature gates by name (e.g. "PreferSameTrafficDistribution")
 * @param maxBackendsPerLoadBalancer        the most backends one LB gets; more are cut with a warning
 */
public record PolicyConfig(boolean forwardHealthCheckVip, int healthzPort, boolean hnsSupportsDsr,
                           boolean hnsSupportsIpv6DualStack, boolean hnsSupportsSessionAffinity,
                           boolean hnsSupportsModifyLoadBalancer, Set<String> enabledFeatures,
                           int maxBackendsPerLoadBalancer) {
    /**
     * The default limit of backends per load balancer: no HNS limit is documented (hcsshim, upstream winkernel), so
     * winproxy programs up to 5,000, the bound chosen for a Service's endpoints; docs/policy.md section 6 says why.
     */
    public static final int DEFAULT_MAX_BACKENDS = 5000;
    /** Feature gate that makes kube-proxy honour node hints ({@code trafficDistribution: PreferSameNode}). */
    public static final String PREFER_SAME_TRAFFIC_DISTRIBUTION = "PreferSameTrafficDistribution";

    public PolicyConfig {
        enabledFeatures = enabledFeatures == null ? Set.of() : Set.copyOf(enabledFeatures);
        if (maxBackendsPerLoadBalancer <= 0) {
            maxBackendsPerLoadBalancer = DEFAULT_MAX_BACKENDS;
        }
    }

    /**
     * Defaults: no health-check VIP forwarding, healthz port 10256, every HNS capability present, node hints enabled
     * (PreferSameTrafficDistribution is on by default in current Kubernetes), the default backend limit.
     */
    public static PolicyConfig defaults() {
        return new PolicyConfig(false, 10256, true, true, true, true, Set.of(PREFER_SAME_TRAFFIC_DISTRIBUTION),
                DEFAULT_MAX_BACKENDS);
    }

    public boolean featureEnabled(String gate) {
        return enabledFeatures.contains(gate);
    }

    public PolicyConfig withForwardHealthCheckVip(boolean value) {
        return new PolicyConfig(value, healthzPort, hnsSupportsDsr, hnsSupportsIpv6DualStack,
                hnsSupportsSessionAffinity, hnsSupportsModifyLoadBalancer, enabledFeatures,
                maxBackendsPerLoadBalancer);
    }

    public PolicyConfig withHnsSupportsDsr(boolean value) {
        return new PolicyConfig(forwardHealthCheckVip, healthzPort, value, hnsSupportsIpv6DualStack,
                hnsSupportsSessionAffinity, hnsSupportsModifyLoadBalancer, enabledFeatures,
                maxBackendsPerLoadBalancer);
    }

    public PolicyConfig withMaxBackendsPerLoadBalancer(int value) {
        return new PolicyConfig(forwardHealthCheckVip, healthzPort, hnsSupportsDsr, hnsSupportsIpv6DualStack,
                hnsSupportsSessionAffinity, hnsSupportsModifyLoadBalancer, enabledFeatures, value);
    }

    public PolicyConfig withEnabledFeatures(Set<String> value) {
        return new PolicyConfig(forwardHealthCheckVip, healthzPort, hnsSupportsDsr, hnsSupportsIpv6DualStack,
                hnsSupportsSessionAffinity, hnsSupportsModifyLoadBalancer, value, maxBackendsPerLoadBalancer);
    }

    public PolicyConfig withHnsSupportsIpv6DualStack(boolean value) {
        return new PolicyConfig(forwardHealthCheckVip, healthzPort, hnsSupportsDsr, value,
                hnsSupportsSessionAffinity, hnsSupportsModifyLoadBalancer, enabledFeatures,
                maxBackendsPerLoadBalancer);
    }

    public PolicyConfig withHnsSupportsSessionAffinity(boolean value) {
        return new PolicyConfig(forwardHealthCheckVip, healthzPort, hnsSupportsDsr, hnsSupportsIpv6DualStack,
                value, hnsSupportsModifyLoadBalancer, enabledFeatures, maxBackendsPerLoadBalancer);
    }
}
