package io.winproxy.agent.cli;

import io.winproxy.agent.kube.ClusterEventHandler;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's CNI: keeps the emulated host's local endpoints equal to the pods of this node named by the
 * EndpointSlices (as the real CNI creates an HNS endpoint per pod), then forwards every event to the agent. The
 * endpoint of a new pod therefore exists before the sync that programs it.
 */
final class DemoCni implements ClusterEventHandler {
    private static final Logger logger = LoggerFactory.getLogger(DemoCni.class);

    private final EmulatedHost host;
    private final ClusterEventHandler delegate;
    private final Map<String, EndpointSliceInfo> slices = new HashMap<>();

    DemoCni(EmulatedHost host, ClusterEventHandler delegate) {
        this.host = host;
        this.delegate = delegate;
    }

    @Override
    public void onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current) {
        synchronized (slices) {
            if (previous != null) {
                slices.remove(previous.key());
            }
            if (current != null) {
                slices.put(current.key(), current);
            }
            try {
                host.syncLocalEndpoints(EmulatedCluster.localPodIps(slices.values(), host.thisNode()));
            } catch (RuntimeException e) {
                logger.warn("Emulated CNI could not update the local endpoints: {}", e.getMessage());
            }
        }
        delegate.onEndpointSlice(previous, current);
    }

    @Override
    public void onService(ServiceInfo previous, ServiceInfo current) {
        delegate.onService(previous, current);
    }

    @Override
    public void onNode(NodeInfo previous, NodeInfo current) {
        delegate.onNode(previous, current);
    }

    @Override
    public void onServicesSynced() {
        delegate.onServicesSynced();
    }

    @Override
    public void onEndpointSlicesSynced() {
        delegate.onEndpointSlicesSynced();
    }

    @Override
    public void onNodeSynced() {
        delegate.onNodeSynced();
    }
}
