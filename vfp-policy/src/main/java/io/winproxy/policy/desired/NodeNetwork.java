package io.winproxy.policy.desired;

import io.winproxy.policy.model.IpFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the policy needs to know about this node and its HNS network; a plain value the agent builds each sync from
 * the Node object, the flags and an HNS read.
 *
 * @param networkType      overlay or l2bridge
 * @param networkName      the HNS network's name (informational)
 * @param nodeName         this node's name (decides which endpoints are local)
 * @param zone             this node's {@code topology.kubernetes.io/zone}, "" when unknown
 * @param nodeIps          this node's IP per family
 * @param sourceVip        overlay: {@code --source-vip}; ignored on l2bridge
 * @param hostMac          overlay: the host MAC, used for the ClusterIP remote endpoints ("00-11-22-33-44-55" form)
 * @param remoteSubnets    overlay: remote-subnet routes, destination prefix (CIDR) -> provider address
 * @param localEndpointIps the IPs of the local (CNI-owned) HNS endpoints of the network
 * @param rootEndpointIps  the IPs of the root (host) HNS endpoint, e.g. "cbr0", empty when there is none
 */
public record NodeNetwork(NetworkType networkType, String networkName, String nodeName, String zone,
                          Map<IpFamily, String> nodeIps, String sourceVip, String hostMac,
                          Map<String, String> remoteSubnets, Set<String> localEndpointIps,
                          List<String> rootEndpointIps) {
    public NodeNetwork {
        networkName = networkName == null ? "" : networkName;
        nodeName = nodeName == null ? "" : nodeName;
        zone = zone == null ? "" : zone;
        nodeIps = nodeIps == null ? Map.of() : Map.copyOf(nodeIps);
        sourceVip = sourceVip == null ? "" : sourceVip;
        hostMac = hostMac == null ? "" : hostMac;
        remoteSubnets = remoteSubnets == null ? Map.of() : Map.copyOf(remoteSubnets);
        localEndpointIps = localEndpointIps == null ? Set.of() : Set.copyOf(localEndpointIps);
        rootEndpointIps = rootEndpointIps == null ? List.of() : List.copyOf(rootEndpointIps);
    }

    /** This node's IP of {@code family}, or "". */
    public String nodeIp(IpFamily family) {
        return nodeIps.getOrDefault(family, "");
    }

    /** True when {@code ip} is one of this node's IPs. */
    public boolean isNodeIp(String ip) {
        return nodeIps.containsValue(ip);
    }

    /** The root endpoint IP of {@code family}, if any. */
    public Optional<String> rootEndpointIp(IpFamily family) {
        return rootEndpointIps.stream().filter(ip -> IpFamily.of(ip) == family).findFirst();
    }

    /** The source VIP load balancers get: {@code sourceVip} on overlay, "" on l2bridge. */
    public String effectiveSourceVip() {
        return networkType == NetworkType.OVERLAY ? sourceVip : "";
    }

    /**
     * An overlay network without a source VIP: its load balancers would have no SNAT address, so nothing may be
     * programmed (upstream: "source-vip flag not set").
     */
    public boolean lacksSourceVip() {
        return networkType == NetworkType.OVERLAY && sourceVip.isEmpty();
    }

    /**
     * An overlay network whose host MAC is unknown (no local interface holds the node IP): the source-VIP and ClusterIP
     * endpoints need it, so nothing may be programmed (upstream: "could not find host mac address").
     */
    public boolean lacksHostMac() {
        return networkType == NetworkType.OVERLAY && hostMac.isEmpty();
    }

    /** True when {@code ip} is the provider address of some remote subnet (i.e. another node's IP). */
    public boolean isProviderAddress(String ip) {
        return remoteSubnets.containsValue(ip);
    }

    /**
     * The overlay provider address of a remote IP: the PA of the remote subnet containing it (longest prefix first),
     * the IP itself when it is a provider address (another node), or empty when nothing matches (a "public" IP).
     * Malformed prefixes are ignored.
     */
    public Optional<String> providerAddressOf(String ip) {
        return new RemoteSubnets(remoteSubnets).providerAddressOf(ip);
    }

    /** A builder, convenient for tests and the agent. */
    public static Builder builder(NetworkType type, String nodeName) {
        return new Builder(type, nodeName);
    }

    /** Mutable builder for {@link NodeNetwork}. */
    public static final class Builder {
        private final NetworkType type;
        private final String nodeName;
        private String networkName = "";
        private String zone = "";
        private final Map<IpFamily, String> nodeIps = new TreeMap<>();
        private String sourceVip = "";
        private String hostMac = "";
        private final Map<String, String> remoteSubnets = new TreeMap<>();
        private final Set<String> localEndpointIps = new TreeSet<>();
        private final List<String> rootEndpointIps = new ArrayList<>();

        private Builder(NetworkType type, String nodeName) {
            this.type = type;
            this.nodeName = nodeName;
        }

        public Builder networkName(String value) {
            networkName = value;
            return this;
        }

        public Builder zone(String value) {
            zone = value;
            return this;
        }

        /** Adds a node IP (its family is derived from the text); the first IP of a family wins. */
        public Builder nodeIp(String ip) {
            nodeIps.putIfAbsent(IpFamily.of(ip), ip);
            return this;
        }

        public Builder sourceVip(String value) {
            sourceVip = value;
            return this;
        }

        public Builder hostMac(String value) {
            hostMac = value;
            return this;
        }

        public Builder remoteSubnet(String prefix, String providerAddress) {
            remoteSubnets.put(prefix, providerAddress);
            return this;
        }

        public Builder localEndpoint(String... ips) {
            localEndpointIps.addAll(List.of(ips));
            return this;
        }

        public Builder rootEndpoint(String... ips) {
            rootEndpointIps.addAll(List.of(ips));
            return this;
        }

        public NodeNetwork build() {
            return new NodeNetwork(type, networkName, nodeName, zone, nodeIps, sourceVip, hostMac, remoteSubnets,
                    localEndpointIps, rootEndpointIps);
        }
    }
}
