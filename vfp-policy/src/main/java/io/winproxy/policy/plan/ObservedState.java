package io.winproxy.policy.plan;

import java.util.List;

/** What the host holds now, as read by the dataplane at the start of a sync. */
public record ObservedState(List<ObservedEndpoint> endpoints, List<ObservedLoadBalancer> loadBalancers) {
    public ObservedState {
        endpoints = List.copyOf(endpoints);
        loadBalancers = List.copyOf(loadBalancers);
    }
}
