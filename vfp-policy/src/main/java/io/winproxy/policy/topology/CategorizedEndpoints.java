package io.winproxy.policy.topology;

import io.winproxy.policy.model.EndpointInfo;
import java.util.List;

/**
 * The result of {@link EndpointCategorizer#categorize}. Upstream returns nil for a set the service never uses; here
 * such a set is empty and the corresponding {@code uses*} flag of the service port is false.
 *
 * @param clusterEndpoints      endpoints for Cluster-policy traffic (topology applied, terminating fallback)
 * @param localEndpoints        this node's endpoints for Local-policy traffic (ready, else serving-terminating)
 * @param allReachableEndpoints the union of both, by "ip:port"
 * @param hasAnyEndpoints       some usable endpoint exists anywhere (even if none is reachable from this node)
 */
public record CategorizedEndpoints(List<EndpointInfo> clusterEndpoints, List<EndpointInfo> localEndpoints,
                                   List<EndpointInfo> allReachableEndpoints, boolean hasAnyEndpoints) {
    public static final CategorizedEndpoints NONE = new CategorizedEndpoints(List.of(), List.of(), List.of(), false);

    public CategorizedEndpoints {
        clusterEndpoints = List.copyOf(clusterEndpoints);
        localEndpoints = List.copyOf(localEndpoints);
        allReachableEndpoints = List.copyOf(allReachableEndpoints);
    }
}
