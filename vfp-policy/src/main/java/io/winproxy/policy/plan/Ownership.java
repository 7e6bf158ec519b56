package io.winproxy.policy.plan;

import java.util.Set;

/**
 * The IDs winproxy created (from the ownership journal). Only owned objects are deleted as stale; an unowned load
 * balancer whose key collides with a desired one is replaced.
 */
public record Ownership(Set<String> loadBalancerIds, Set<String> remoteEndpointIds) {
    public static final Ownership NONE = new Ownership(Set.of(), Set.of());

    public Ownership {
        loadBalancerIds = Set.copyOf(loadBalancerIds);
        remoteEndpointIds = Set.copyOf(remoteEndpointIds);
    }

    public boolean ownsLoadBalancer(String id) {
        return loadBalancerIds.contains(id);
    }

    public boolean ownsRemoteEndpoint(String id) {
        return remoteEndpointIds.contains(id);
    }
}
