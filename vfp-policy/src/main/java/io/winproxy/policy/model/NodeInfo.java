package io.winproxy.policy.model;

import java.util.List;
import java.util.Map;

/**
 * A Kubernetes Node reduced to plain values: this node (name, zone, eligibility) and, for the emulated network,
 * every node's pod CIDRs and InternalIPs.
 *
 * @param zone               the {@code topology.kubernetes.io/zone} label, or null
 * @param beingDeleted       the node has a deletion timestamp
 * @param taintKeys          the keys of {@code spec.taints} (e.g. {@code ToBeDeletedByClusterAutoscaler})
 */
public record NodeInfo(String name, Map<String, String> labels, List<String> podCidrs, List<String> internalIps,
                       String zone, boolean beingDeleted, List<String> taintKeys) {
    public NodeInfo {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        podCidrs = podCidrs == null ? List.of() : List.copyOf(podCidrs);
        internalIps = internalIps == null ? List.of() : List.copyOf(internalIps);
        taintKeys = taintKeys == null ? List.of() : List.copyOf(taintKeys);
    }
}
