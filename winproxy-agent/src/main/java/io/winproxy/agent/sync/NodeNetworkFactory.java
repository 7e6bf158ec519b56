package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.HcnTranslator;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.RemoteSubnetRoute;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.NodeInfo;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Builds the policy's {@link NodeNetwork} from what the sync read from HNS (network type, remote-subnet routes,
 * local and root endpoints), this node's Node object (InternalIPs, zone) and the flags (source VIP, root endpoint
 * name, node IP override, host MAC). On overlay without {@code --source-vip}, the source VIP the CNI already created
 * an endpoint for is used ({@link #cniSourceVip}). Pure. The node IP of each family comes from {@code --bind-address}
 * when it names one of that family, else from the Node's InternalIPs (as upstream's node-IP detection: an IPv4
 * {@code --bind-address} on a Node with an IPv6 InternalIP still gives the node its IPv6 address); with neither, the
 * overlay network's provider address is the node IP; when none is known, {@link #build} throws
 * {@link NodeIpUnknownException} rather than describe a node without addresses (whose desired state is empty).
 *
 * @param nodeIpOverride  the concrete IPs of {@code --bind-address}, comma-separated (one, or one per family), else ""
 *                        ({@code NodeFacts.nodeIpOverride})
 * @param hostMacOf       the MAC ("aa-bb-cc-dd-ee-ff") of the local interface holding an IP, "" when none
 *                        ({@link HostMac#of} in production)
 */
public record NodeNetworkFactory(String nodeName, String sourceVip, String rootEndpointName, String nodeIpOverride,
                                 UnaryOperator<String> hostMacOf) {
    public NodeNetworkFactory {
        sourceVip = sourceVip == null ? "" : sourceVip;
        rootEndpointName = rootEndpointName == null ? "" : rootEndpointName;
        nodeIpOverride = nodeIpOverride == null ? "" : nodeIpOverride;
        hostMacOf = hostMacOf == null ? ip -> "" : hostMacOf;
    }

    /** A factory that knows no host MAC (read-only tools and tests). */
    public static NodeNetworkFactory withoutHostMac(String nodeName, String sourceVip, String rootEndpointName,
                                                   String nodeIpOverride) {
        return new NodeNetworkFactory(nodeName, sourceVip, rootEndpointName, nodeIpOverride, ip -> "");
    }

    /** The network type HNS reports; anything other than Overlay is programmed like L2Bridge, as upstream does. */
    public static NetworkType networkType(String hnsType) {
        return NetworkType.parse(hnsType).orElse(NetworkType.L2BRIDGE);
    }

    /**
     * The source VIP a CNI (or an earlier winproxy) already gave this node on an overlay network: the IP of the local
     * endpoint named {@code <network>_ep} (Calico's {@code Calico_ep}, which Calico's kube-proxy scripts pass as
     * {@code --source-vip}), {@code VIPEndpoint} (OpenShift WMCO) or winproxy's own source-VIP endpoint. Empty when
     * none, or when more than one address qualifies.
     */
    public static Optional<String> cniSourceVip(HostComputeNetwork network, List<HostComputeEndpoint> endpoints) {
        if (!network.isOverlay()) {
            return Optional.empty();
        }
        Set<String> names = Set.of((network.name() + "_ep").toLowerCase(Locale.ROOT), "vipendpoint",
                HnsDataplane.SOURCE_VIP_ENDPOINT_NAME);
        Set<String> ips = new TreeSet<>();
        for (HostComputeEndpoint endpoint : endpoints) {
            if (!endpoint.isRemote() && endpoint.name() != null
                    && names.contains(endpoint.name().toLowerCase(Locale.ROOT))) {
                endpoint.ipAddress().filter(ip -> !ip.isEmpty() && !ip.contains(":")).map(HcnTranslator::canonicalIp)
                        .ifPresent(ips::add);
            }
        }
        return ips.size() == 1 ? Optional.of(ips.iterator().next()) : Optional.empty();
    }

    /**
     * This node's primary IP, the one its host MAC is looked up for: the first IP of {@code nodeIpOverride}
     * ({@code NodeFacts.nodeIpOverride}), else the Node's first InternalIP, else (no Node object or no InternalIP) the
     * overlay network's provider address, which is this host's IP; "" when none is known.
     */
    public static String primaryNodeIp(String nodeIpOverride, NodeInfo node, HostComputeNetwork network) {
        List<String> overrides = overrides(nodeIpOverride);
        if (!overrides.isEmpty()) {
            return overrides.get(0);
        }
        if (node != null && !node.internalIps().isEmpty()) {
            return node.internalIps().get(0);
        }
        return network.providerAddress().orElse("");
    }

    private static List<String> overrides(String nodeIpOverride) {
        return nodeIpOverride == null || nodeIpOverride.isEmpty() ? List.of() : List.of(nodeIpOverride.split(","));
    }

    public NodeNetwork build(HostView host, NodeInfo node) {
        String vip = sourceVip;
        if (vip.isEmpty()) {
            vip = cniSourceVip(host.network(), host.endpoints()).orElse("");
        }
        NodeNetwork.Builder b = NodeNetwork.builder(networkType(host.network().type()), nodeName)
                .networkName(host.network().name())
                .sourceVip(vip);
        if (node != null && node.zone() != null) {
            b.zone(node.zone());
        }
        String primaryIp = primaryNodeIp(nodeIpOverride, node, host.network());
        if (primaryIp.isEmpty()) {
            throw new NodeIpUnknownException("The IP of node " + nodeName + " is unknown: the Node object has no"
                    + " InternalIP, --bind-address names none and network " + host.network().name()
                    + " has no provider address");
        }
        // the builder keeps the first IP of each family: the overrides first, then the Node's, then the primary IP
        // (which is one of those, or else the provider address)
        overrides(nodeIpOverride).forEach(b::nodeIp);
        if (node != null) {
            node.internalIps().forEach(b::nodeIp);
        }
        b.nodeIp(primaryIp);
        b.hostMac(hostMacOf.apply(primaryIp));
        for (RemoteSubnetRoute route : host.network().remoteSubnetRoutes()) {
            b.remoteSubnet(route.destinationPrefix(), route.providerAddress());
        }
        for (HostComputeEndpoint endpoint : host.endpoints()) {
            if (endpoint.isRemote()) {
                continue;
            }
            // HNS may render an IPv6 address differently from how it was written: compare canonical text.
            String[] ips = endpoint.ipConfigurations().stream().map(c -> c.ipAddress())
                    .filter(ip -> ip != null && !ip.isEmpty()).map(HcnTranslator::canonicalIp)
                    .toArray(String[]::new);
            if (!rootEndpointName.isEmpty() && endpoint.name() != null
                    && endpoint.name().toLowerCase(Locale.ROOT).equals(rootEndpointName.toLowerCase(Locale.ROOT))) {
                b.rootEndpoint(ips);
            } else {
                b.localEndpoint(ips);
            }
        }
        return b.build();
    }
}
