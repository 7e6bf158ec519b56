package io.winproxy.agent.kube;

import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;

/**
 * Receives the cluster state from the informers, already mapped to plain values (fabric8 types stop in the
 * mappers). Called on informer threads: implementations only feed change trackers and poke the sync runner; they
 * never touch HNS. {@code previous} is null for an add, {@code current} is null for a delete (tombstones resolved).
 */
public interface ClusterEventHandler {

    void onService(ServiceInfo previous, ServiceInfo current);

    void onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current);

    /** This node (selected by field selector); {@code current} null when the Node object is deleted. */
    void onNode(NodeInfo previous, NodeInfo current);

    /** The initial list of Services has been delivered. */
    void onServicesSynced();

    /** The initial list of EndpointSlices has been delivered. */
    void onEndpointSlicesSynced();

    /** The initial list of this Node (zero or one object) has been delivered. Optional: does nothing by default. */
    default void onNodeSynced() {
    }
}
