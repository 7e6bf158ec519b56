package io.winproxy.agent.cli;

import io.winproxy.agent.demo.ExampleCluster;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds an emulated node from cluster values: the network from the Nodes (this node's pod CIDR and InternalIP,
 * remote-subnet routes to the others) and the CNI's local endpoints for the pods of this node named by the
 * EndpointSlices. Used by {@code plan}/{@code trace} (a fresh network) and by the demo (kept in sync).
 */
final class EmulatedCluster {
    private EmulatedCluster() {
    }

    static EmulatedHost.NetworkType networkType(HnsHostOptions.NetworkKind kind) {
        return kind == HnsHostOptions.NetworkKind.l2bridge ? EmulatedHost.NetworkType.L2BRIDGE
                : EmulatedHost.NetworkType.OVERLAY;
    }

    /** Creates (or updates) the network of {@code host} from the Nodes. */
    static void syncNetwork(EmulatedHost host, Collection<NodeInfo> nodes) {
        host.syncNetwork(nodes.stream().map(n -> new EmulatedHost.Node(n.name(),
                n.podCidrs().stream().filter(c -> !c.contains(":")).findFirst().orElse(""),
                n.internalIps().stream().filter(ip -> !ip.contains(":")).findFirst().orElse(""))).toList());
    }

    /** The IPs of the endpoints on {@code nodeName} (first address of each), as the CNI would have them. */
    static Set<String> localPodIps(Collection<EndpointSliceInfo> slices, String nodeName) {
        Set<String> ips = new TreeSet<>();
        for (EndpointSliceInfo slice : slices) {
            if (!"IPv4".equals(slice.addressType()) && !"IPv6".equals(slice.addressType())) {
                continue;
            }
            for (EndpointSliceInfo.SliceEndpoint ep : slice.endpoints()) {
                if (nodeName.equals(ep.nodeName()) && !ep.addresses().isEmpty()) {
                    ips.add(ep.addresses().get(0));
                }
            }
        }
        return ips;
    }

    /** A fresh in-memory host: network from the Nodes, local endpoints for this node's pods, the source VIP. */
    static EmulatedHost fresh(HnsEmulator hns, HnsHostOptions.NetworkKind kind, String networkName, String nodeName,
                              List<NodeInfo> nodes, Collection<EndpointSliceInfo> slices, String sourceVip) {
        EmulatedHost host = new EmulatedHost(hns, networkType(kind), networkName, nodeName);
        syncNetwork(host, nodes);
        host.syncLocalEndpoints(localPodIps(slices, nodeName));
        if (sourceVip != null && !sourceVip.isEmpty() && host.type() == EmulatedHost.NetworkType.OVERLAY) {
            host.ensureHostEndpoint(sourceVip);
        }
        return host;
    }

    /**
     * This node: the configured {@code --hostname-override} (lower-cased), else win-node-1 when present, else the
     * first Node.
     *
     * @throws UsageException when the configured name is not one of the Nodes (nothing could be programmed)
     */
    static String nodeName(String configured, List<NodeInfo> nodes) {
        String given = configured == null ? "" : configured.trim().toLowerCase(Locale.ROOT);
        List<String> known = nodes.stream().map(NodeInfo::name).toList();
        if (!given.isEmpty()) {
            if (!known.isEmpty() && !known.contains(given)) {
                throw new UsageException("--hostname-override: no Node " + given + " in the cluster (Nodes: "
                        + String.join(", ", known) + ")");
            }
            return given;
        }
        return defaultNodeName(known);
    }

    /** This node when none is configured: win-node-1 when the cluster has it (or has no Node), else the first one. */
    static String defaultNodeName(List<String> nodeNames) {
        if (nodeNames.isEmpty() || nodeNames.contains(ExampleCluster.defaultNodeName())) {
            return ExampleCluster.defaultNodeName();
        }
        return nodeNames.get(0);
    }

    /** The overlay source VIP the emulated CNI reserves: address .2 of this node's IPv4 pod CIDR. */
    static Optional<String> sourceVipFor(List<NodeInfo> nodes, String nodeName) {
        return nodes.stream().filter(n -> n.name().equals(nodeName)).findFirst()
                .flatMap(n -> n.podCidrs().stream().filter(c -> !c.contains(":")).findFirst())
                .map(cidr -> {
                    String[] octets = cidr.split("/")[0].split("\\.");
                    return octets[0] + "." + octets[1] + "." + octets[2] + "." + (Integer.parseInt(octets[3]) + 2);
                });
    }
}
