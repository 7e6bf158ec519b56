package io.winproxy.policy.desired;

import java.util.List;

/** The immutable snapshot of what winproxy wants on the host, rebuilt every sync. */
public record DesiredState(List<DesiredLoadBalancer> loadBalancers, List<DesiredRemoteEndpoint> remoteEndpoints,
                           List<PolicyWarning> warnings) {
    public DesiredState {
        loadBalancers = List.copyOf(loadBalancers);
        remoteEndpoints = List.copyOf(remoteEndpoints);
        warnings = List.copyOf(warnings);
    }
}
