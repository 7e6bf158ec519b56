package io.winproxy.agent.sync;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.List;

/** The HNS network and its endpoints as read at the start of a sync; input to the node-network description. */
public record HostView(HostComputeNetwork network, List<HostComputeEndpoint> endpoints) {
    public HostView {
        endpoints = List.copyOf(endpoints);
    }
}
