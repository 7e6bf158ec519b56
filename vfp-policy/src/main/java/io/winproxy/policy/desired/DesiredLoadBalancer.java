package io.winproxy.policy.desired;

import io.winproxy.policy.model.ServicePortName;
import java.util.List;

/**
 * One load balancer winproxy wants on the host, in policy vocabulary. Backends are endpoint IPs (sorted, distinct);
 * the dataplane resolves them to HNS endpoint IDs. Flag values are HNS's: LB flags 1 DSR, 2 IPv6; port-mapping
 * flags 1 ILB, 2 LocalRoutedVIP, 4 UseMux, 8 PreserveDIP, 16 VipExternalIP; distribution 0 none, 2 SourceIP.
 */
public record DesiredLoadBalancer(ServicePortName service, LoadBalancerKind kind, LoadBalancerKey key,
                                  int internalPort, List<String> backends, String sourceVip, int flags,
                                  int portMappingFlags, int distributionType) {
    public static final int FLAG_DSR = 1;
    public static final int FLAG_IPV6 = 2;

    public DesiredLoadBalancer {
        backends = List.copyOf(backends);
        sourceVip = sourceVip == null ? "" : sourceVip;
    }

    /** {@code frontendVIPs} of {@code plan -o json}: the VIP, or empty for the VIP-less NodePort kind. */
    public List<String> frontendVips() {
        return key.frontendVip().isEmpty() ? List.of() : List.of(key.frontendVip());
    }

    /** The external (frontend) port. */
    public int externalPort() {
        return key.externalPort();
    }

    public boolean dsr() {
        return (flags & FLAG_DSR) != 0;
    }

    public boolean ipv6() {
        return (flags & FLAG_IPV6) != 0;
    }

    public DesiredLoadBalancer withFlags(int newFlags, int newPortMappingFlags) {
        return new DesiredLoadBalancer(service, kind, key, internalPort, backends, sourceVip, newFlags,
                newPortMappingFlags, distributionType);
    }

    public DesiredLoadBalancer withBackends(List<String> newBackends) {
        return new DesiredLoadBalancer(service, kind, key, internalPort, newBackends, sourceVip, flags,
                portMappingFlags, distributionType);
    }
}
