package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.HcnTranslator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.RemoteSubnetRoute;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.NodeInfo;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Builds the policy's {@link NodeNetwork} from what the sync read from HNS (network type, remote-subnet routes,
 * local and root endpoints), this node's Node object (InternalIPs, zone) and the flags (source VIP, root endpoint
 * name, node IP override, host MAC). Pure. The node IP comes from {@code --bind-address}, else the Node's
 * InternalIPs, else the overlay network's provider address; when none is known, {@link #build} throws
 * {@link NodeIpUnknownException} rather than describe a node without addresses (whose desired state is empty).
 *
 * @param nodeIpOverride  {@code --bind-address} when it names a concrete IP, else "" (use the Node's InternalIPs)
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

    public NodeNetwork build(HostView host, NodeInfo node) {
        NodeNetwork.Builder b = NodeNetwork.builder(networkType(host.network().type()), nodeName)
                .networkName(host.network().name())
                .sourceVip(sourceVip);
        if (node != null && node.zone() != null) {
            b.zone(node.zone());
        }
        String primaryIp = "";
        if (!nodeIpOverride.isEmpty()) {
            b.nodeIp(nodeIpOverride);
            primaryIp = nodeIpOverride;
        } else if (node != null && !node.internalIps().isEmpty()) {
            node.internalIps().forEach(b::nodeIp);
            primaryIp = node.internalIps().get(0);
        } else if (host.network().providerAddress().isPresent()) {
            // No Node object (or no InternalIP): an overlay network's provider address is this host's IP.
            primaryIp = host.network().providerAddress().get();
            b.nodeIp(primaryIp);
        } else {
            throw new NodeIpUnknownException("The IP of node " + nodeName + " is unknown: the Node object has no"
                    + " InternalIP, --bind-address names none and network " + host.network().name()
                    + " has no provider address");
        }
        if (!primaryIp.isEmpty()) {
            b.hostMac(hostMacOf.apply(primaryIp));
        }
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
