package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Taint;
import io.winproxy.policy.model.NodeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Maps a fabric8 {@link Node} to {@link NodeInfo}. Never throws: missing spec or status map to empty values (with a
 * warning naming the Node when the spec is missing); an object without a name maps to empty. Stateless and
 * thread-safe.
 */
public final class NodeMapper extends KubeObjectMapper<Node, NodeInfo> {
    /** The well-known zone label. */
    public static final String ZONE_LABEL = "topology.kubernetes.io/zone";

    /** @param warnings receives one line per dropped part, naming the Node (the log: {@link #loggedWarnings()}) */
    public NodeMapper(Consumer<String> warnings) {
        super("Node", false, warnings);
    }

    @Override
    protected NodeInfo mapNamed(Node node, ObjectMeta meta, String id) {
        Map<String, String> labels = ServiceMapper.withoutNullValues(meta.getLabels());
        NodeSpec spec = node.getSpec();
        if (spec == null) {
            warnings.accept(id + ": no spec; mapped without pod CIDRs or taints");
            spec = new NodeSpec();
        }
        List<String> podCidrs = spec.getPodCIDRs() != null && !spec.getPodCIDRs().isEmpty()
                ? ServiceMapper.withoutNulls(spec.getPodCIDRs())
                : spec.getPodCIDR() == null || spec.getPodCIDR().isEmpty() ? List.of() : List.of(spec.getPodCIDR());
        List<String> internalIps = new ArrayList<>();
        if (node.getStatus() != null && node.getStatus().getAddresses() != null) {
            for (NodeAddress a : node.getStatus().getAddresses()) {
                if (a != null && "InternalIP".equals(a.getType()) && a.getAddress() != null
                        && !a.getAddress().isEmpty()) {
                    internalIps.add(a.getAddress());
                }
            }
        }
        List<String> taintKeys = new ArrayList<>();
        if (spec.getTaints() != null) {
            for (Taint t : spec.getTaints()) {
                if (t != null && t.getKey() != null) {
                    taintKeys.add(t.getKey());
                }
            }
        }
        return new NodeInfo(meta.getName(), labels, podCidrs, internalIps, labels.get(ZONE_LABEL),
                meta.getDeletionTimestamp() != null && !meta.getDeletionTimestamp().isEmpty(), taintKeys);
    }
}
