package io.winproxy.policy.plan;

import io.winproxy.policy.desired.LoadBalancerKey;
import java.util.List;

/**
 * An HNS load balancer as observed on the host. {@code key} is null when the load balancer cannot be expressed in
 * policy vocabulary (no or several port mappings, a protocol other than TCP/UDP); such objects are never adopted.
 * {@code backendIps} are the IPs of the referenced endpoints that exist; {@code endpointIds} is what HNS holds.
 */
public record ObservedLoadBalancer(String id, LoadBalancerKey key, int internalPort, List<String> endpointIds,
                                   List<String> backendIps, String sourceVip, int flags, int portMappingFlags,
                                   int distributionType) {
    public ObservedLoadBalancer {
        endpointIds = List.copyOf(endpointIds);
        backendIps = List.copyOf(backendIps);
        sourceVip = sourceVip == null ? "" : sourceVip;
    }
}
