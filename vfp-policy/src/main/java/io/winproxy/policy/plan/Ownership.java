package io.winproxy.policy.plan;

import java.util.Set;

/**
 * The IDs winproxy created or adopted (from the ownership journal), lower-case. Only owned objects are deleted as
 * stale; an unowned load balancer whose key collides with a desired one is replaced. The sets are read-only views
 * that must not change while a plan is computed (the sync thread owns the journal). Lookups ignore the letter case
 * of the ID (HNS returns upper-case GUIDs).
 */
public record Ownership(Set<String> loadBalancerIds, Set<String> remoteEndpointIds) {
    public static final Ownership NONE = new Ownership(Set.of(), Set.of());

    public boolean ownsLoadBalancer(String id) {
        return owns(loadBalancerIds, id);
    }

    public boolean ownsRemoteEndpoint(String id) {
        return owns(remoteEndpointIds, id);
    }

    private static boolean owns(Set<String> ids, String id) {
        if (id == null) {
            return false;
        }
        return ids.contains(HnsIds.normalize(id));
    }
}
