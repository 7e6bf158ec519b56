package io.winproxy.agent.sync;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.RemoteSubnetRoute;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.NodeInfo;
import java.util.Locale;

/**
 * Builds the policy's {@link NodeNetwork} from what the sync read from HNS (network type, remote-subnet routes,
 * local and root endpoints), this node's Node object (InternalIPs, zone) and the flags (source VIP, root endpoint
 * name, node IP override, host MAC). Pure.
 *
 * @param nodeIpOverride  {@code --bind-address} when it names a concrete IP, else "" (use the Node's InternalIPs)
 * @param hostMac         the MAC of the interface holding the node IP, "" when unknown
 */
public record NodeNetworkFactory(String nodeName, String sourceVip, String rootEndpointName, String nodeIpOverride,
                                 String hostMac) {
    public NodeNetworkFactory {
        sourceVip = sourceVip == null ? "" : sourceVip;
        rootEndpointName = rootEndpointName == null ? "" : rootEndpointName;
        nodeIpOverride = nodeIpOverride == null ? "" : nodeIpOverride;
        hostMac = hostMac == null ? "" : hostMac;
    }

    /** The network type HNS reports; anything other than Overlay is programmed like L2Bridge, as upstream does. */
    public static NetworkType networkType(String hnsType) {
        return NetworkType.parse(hnsType).orElse(NetworkType.L2BRIDGE);
    }

    public NodeNetwork build(HostView host, NodeInfo node) {
        NodeNetwork.Builder b = NodeNetwork.builder(networkType(host.network().type()), nodeName)
                .networkName(host.network().name())
                .sourceVip(sourceVip)
                .hostMac(hostMac);
        if (node != null && node.zone() != null) {
            b.zone(node.zone());
        }
        if (!nodeIpOverride.isEmpty()) {
            b.nodeIp(nodeIpOverride);
        } else if (node != null) {
            node.internalIps().forEach(b::nodeIp);
        }
        for (RemoteSubnetRoute route : host.network().remoteSubnetRoutes()) {
            b.remoteSubnet(route.destinationPrefix(), route.providerAddress());
        }
        for (HostComputeEndpoint endpoint : host.endpoints()) {
            if (endpoint.isRemote()) {
                continue;
            }
            String[] ips = endpoint.ipConfigurations().stream().map(c -> c.ipAddress())
                    .filter(ip -> ip != null && !ip.isEmpty()).toArray(String[]::new);
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
