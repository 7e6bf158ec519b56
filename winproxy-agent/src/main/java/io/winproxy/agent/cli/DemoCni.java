package io.winproxy.agent.cli;

import io.winproxy.agent.kube.ClusterEventHandler;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's CNI: keeps the emulated host's local endpoints equal to the pods of this node named by the
 * EndpointSlices (as the real CNI creates an HNS endpoint per pod), then forwards every event to the agent. The
 * endpoint of a new pod therefore exists before the sync that programs it.
 *
 * <p>While the initial list of EndpointSlices is still arriving, slice by slice, endpoints are only added: a pod
 * of a slice not delivered yet is not gone, and deleting its endpoint would give it a new ID (as a pod restart
 * does), so a restarted demo on a kept {@code --hns-state} would have to re-program every load balancer that uses
 * it. Once the list is complete the local endpoints are made exact, and from then on every event makes them exact.
 */
final class DemoCni implements ClusterEventHandler {
    private static final Logger logger = LoggerFactory.getLogger(DemoCni.class);

    private final EmulatedHost host;
    private final ClusterEventHandler delegate;
    private final Map<String, EndpointSliceInfo> slices = new HashMap<>();
    private boolean slicesSynced;

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
            updateLocalEndpoints();
        }
        delegate.onEndpointSlice(previous, current);
    }

    /** Called with {@code slices} locked. */
    private void updateLocalEndpoints() {
        try {
            Set<String> podIps = EmulatedCluster.localPodIps(slices.values(), host.thisNode());
            if (slicesSynced) {
                host.syncLocalEndpoints(podIps);
            } else {
                podIps.forEach(host::ensureLocalEndpoint);
            }
        } catch (RuntimeException e) {
            logger.atWarn().setMessage("Emulated CNI could not update the local endpoints")
                    .addKeyValue("err", e.getMessage()).log();
        }
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
        synchronized (slices) {
            slicesSynced = true;
            updateLocalEndpoints();
        }
        delegate.onEndpointSlicesSynced();
    }

    @Override
    public void onNodeSynced() {
        delegate.onNodeSynced();
    }
}
