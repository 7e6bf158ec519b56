package io.winproxy.hns.emulator;

import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.RemoteSubnetRoute;
import io.winproxy.hns.model.SchemaVersion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CNI and host side of an emulated Windows node, on plain values only (no Kubernetes types): it builds the
 * cluster network HNS would hold and creates/removes the local (CNI-owned) endpoints of this node's pods.
 *
 * <p>Network: one network named {@code networkName} of type Overlay or L2Bridge. This node's pod CIDR is its IPAM
 * subnet (gateway {@code .1}) and its InternalIP the network's {@code ProviderAddress} policy; every other node with a
 * pod CIDR becomes a {@code RemoteSubnetRoute} policy (overlay: with {@code ProviderAddress} = that node's InternalIP,
 * the VXLAN VNI 4096 and its distributed-router MAC; L2Bridge: the prefix only). Overlay networks also carry this
 * node's {@code DrMacAddress} ({@code 0E-2A-} + the InternalIP's octets in hex, as flannel does).
 *
 * <p>These actions are the CNI's, not the HNS client's: they are not journaled and never fault. Deleting a local
 * endpoint drops it from the load balancers that referenced it (its switch port is gone, so HNS no longer delivers
 * to it); remote endpoints and load balancers are never touched here.
 */
public final class EmulatedHost {
    private static final Logger logger = LoggerFactory.getLogger(EmulatedHost.class);
    private static final int VXLAN_VNI = 4096;

    /** The emulated CNI's network type, with its usual network name. */
    public enum NetworkType {
        OVERLAY, L2BRIDGE;

        /** The network's {@code Type} in HCN documents. */
        public String hcnType() {
            return switch (this) {
                case OVERLAY -> "Overlay";
                case L2BRIDGE -> "L2Bridge";
            };
        }

        /** The name the CNI usually gives the network (flannel's overlay name, the bridge plugin's {@code cbr0}). */
        public String defaultName() {
            return switch (this) {
                case OVERLAY -> "winproxy-overlay";
                case L2BRIDGE -> "cbr0";
            };
        }

        /** {@code overlay} or {@code l2bridge} (case-insensitive); one-line message otherwise. */
        public static NetworkType parse(String text) {
            String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
            return switch (t) {
                case "overlay", "vxlan" -> OVERLAY;
                case "l2bridge", "bridge", "host-gw" -> L2BRIDGE;
                default -> throw new IllegalArgumentException(
                        "emulated network type must be overlay or l2bridge, not '" + text + "'");
            };
        }
    }

    /** A node as the emulated CNI sees it: name, pod CIDR (may be empty) and InternalIP. */
    public record Node(String name, String podCidr, String internalIp) {
        public Node {
            Objects.requireNonNull(name, "node name");
            podCidr = podCidr == null ? "" : podCidr.trim();
            internalIp = internalIp == null ? "" : internalIp.trim();
        }
    }

    private final HnsEmulator hns;
    private final NetworkType type;
    private final String networkName;
    private final String thisNode;

    /** A host of {@code type} whose network is called {@code networkName} (null: the type's default name). */
    public EmulatedHost(HnsEmulator hns, NetworkType type, String networkName, String thisNode) {
        this.hns = Objects.requireNonNull(hns, "hns");
        this.type = Objects.requireNonNull(type, "type");
        this.networkName = networkName == null || networkName.isBlank() ? type.defaultName() : networkName;
        this.thisNode = Objects.requireNonNull(thisNode, "thisNode");
    }

    public String networkName() {
        return networkName;
    }

    public NetworkType type() {
        return type;
    }

    public String thisNode() {
        return thisNode;
    }

    /**
     * Creates the network, or updates its subnets and policies in place (same ID) when it exists, from the current
     * node list. Returns the network as stored.
     */
    public HostComputeNetwork syncNetwork(List<Node> nodes) {
        HostComputeNetwork desired = buildNetwork(nodes);
        return hns.hostAction(store -> {
            Optional<HostComputeNetwork> existing = store.networks().stream()
                    .filter(n -> networkName.equalsIgnoreCase(n.name())).findFirst();
            HostComputeNetwork stored;
            if (existing.isPresent() && !existing.get().type().equalsIgnoreCase(desired.type())) {
                // HNS cannot change a network's type in place; a second network may not take the name.
                EmulatorRules.checkNetworkCreate(store, desired);
            }
            if (existing.isPresent()) {
                stored = desired.withId(existing.get().id());
                if (!stored.equals(existing.get())) {
                    store.put(stored);
                }
            } else {
                EmulatorRules.checkNetworkCreate(store, desired);
                stored = desired.withId(store.newId());
                store.put(stored);
                logger.atInfo().setMessage("Emulated CNI created the network").addKeyValue("type", type.hcnType())
                        .addKeyValue("network", networkName).addKeyValue("networkID", stored.id()).log();
            }
            return stored;
        });
    }

    /**
     * Deletes this host's network (CNI teardown). Fails with {@code HCN_E_ENTITY_HAS_REFERENCES} while it still has
     * endpoints; false when there is no such network.
     */
    public boolean deleteNetwork() {
        return hns.hostAction(store -> {
            Optional<HostComputeNetwork> net = store.networks().stream()
                    .filter(n -> networkName.equalsIgnoreCase(n.name())).findFirst();
            net.ifPresent(n -> {
                EmulatorRules.checkNetworkDelete(store, n.id());
                store.removeNetwork(n.id());
            });
            return net.isPresent();
        });
    }

    /** The network document for {@code nodes}, without an ID. */
    public HostComputeNetwork buildNetwork(List<Node> nodes) {
        Node me = nodes.stream().filter(n -> n.name().equals(thisNode)).findFirst().orElse(null);
        List<HcnPolicy> policies = new ArrayList<>();
        if (me != null && !me.internalIp().isEmpty()) {
            if (type == NetworkType.OVERLAY) {
                policies.add(HcnPolicy.drMacAddress(drMac(me.internalIp())));
            }
            policies.add(HcnPolicy.providerAddress(me.internalIp()));
        }
        nodes.stream().filter(n -> !n.name().equals(thisNode) && !n.podCidr().isEmpty())
                .sorted(Comparator.comparing(Node::name))
                .forEach(n -> policies.add((type == NetworkType.OVERLAY
                        ? new RemoteSubnetRoute(n.podCidr(), VXLAN_VNI, n.internalIp(), drMac(n.internalIp()))
                        : new RemoteSubnetRoute(n.podCidr(), 0, null, null)).toPolicy()));
        List<HostComputeNetwork.Subnet> subnets = new ArrayList<>();
        if (me != null && !me.podCidr().isEmpty()) {
            List<HostComputeNetwork.Route> routes = Ipv4.range(me.podCidr())
                    .map(r -> List.of(new HostComputeNetwork.Route(Ipv4.format(r[0] + 1), "0.0.0.0/0", 0)))
                    .orElse(List.of());
            subnets.add(new HostComputeNetwork.Subnet(me.podCidr(), routes));
        }
        List<HostComputeNetwork.Ipam> ipams = subnets.isEmpty() ? List.of()
                : List.of(new HostComputeNetwork.Ipam("Static", subnets));
        return new HostComputeNetwork(null, networkName, type.hcnType(), policies, ipams, 0, SchemaVersion.V2);
    }

    /** The local endpoint with {@code ip} on this host's network, created (like a CNI ADD) when absent. */
    public HostComputeEndpoint ensureLocalEndpoint(String ip) {
        return ensureLocal(ip, "pod-" + ip + "_" + networkName);
    }

    /**
     * The host's source-VIP endpoint (a local endpoint named {@code <network>_ep} with {@code ip}), created when
     * absent; kube-proxy's {@code --source-vip} on overlay networks.
     */
    public HostComputeEndpoint ensureHostEndpoint(String ip) {
        return ensureLocal(ip, networkName + "_ep");
    }

    /**
     * Makes the local pod endpoints exactly {@code podIps}: creates the missing ones and deletes the local
     * endpoints of pods that are gone (CNI DEL). The host endpoint ({@code <network>_ep}) and remote endpoints are
     * kept. Returns the pod endpoints after the change.
     */
    public List<HostComputeEndpoint> syncLocalEndpoints(Set<String> podIps) {
        return hns.hostAction(store -> {
            HostComputeNetwork net = requireNetwork(store);
            for (HostComputeEndpoint ep : localEndpoints(store, net)) {
                boolean hostEp = (networkName + "_ep").equals(ep.name());
                if (!hostEp && ep.ipAddresses().stream().noneMatch(podIps::contains)) {
                    removeLocal(store, ep);
                }
            }
            for (String ip : podIps.stream().sorted().toList()) {
                findLocal(store, net, ip).orElseGet(() -> createLocal(store, net, ip, "pod-" + ip + "_" + networkName));
            }
            return localEndpoints(store, net).stream()
                    .filter(e -> !(networkName + "_ep").equals(e.name())).toList();
        });
    }

    /** Deletes this host's local endpoint with {@code ip} (CNI DEL); false when there is none. */
    public boolean removeLocalEndpoint(String ip) {
        return hns.hostAction(store -> {
            Optional<HostComputeEndpoint> ep = findLocal(store, requireNetwork(store), ip);
            ep.ifPresent(e -> removeLocal(store, e));
            return ep.isPresent();
        });
    }

    private HostComputeEndpoint ensureLocal(String ip, String name) {
        return hns.hostAction(store -> {
            HostComputeNetwork net = requireNetwork(store);
            return findLocal(store, net, ip).orElseGet(() -> createLocal(store, net, ip, name));
        });
    }

    private HostComputeEndpoint createLocal(EmulatorStore store, HostComputeNetwork net, String ip, String name) {
        HostComputeEndpoint ep = EndpointFactory.complete(store, net,
                HostComputeEndpoint.local(net.id(), name, ip, prefixLength(net, ip), null));
        store.put(ep);
        return ep;
    }

    private static void removeLocal(EmulatorStore store, HostComputeEndpoint ep) {
        for (HostComputeLoadBalancer lb : store.loadBalancersReferencing(ep.id())) {
            List<String> kept = lb.hostComputeEndpoints().stream()
                    .filter(id -> !EmulatorStore.key(id).equals(EmulatorStore.key(ep.id()))).toList();
            store.put(lb.withEndpoints(kept));
        }
        store.removeEndpoint(ep.id());
    }

    private HostComputeNetwork requireNetwork(EmulatorStore store) {
        return store.networks().stream().filter(n -> networkName.equalsIgnoreCase(n.name())).findFirst()
                .orElseThrow(() -> new IllegalStateException("emulated network " + networkName
                        + " does not exist; call syncNetwork first"));
    }

    private static List<HostComputeEndpoint> localEndpoints(EmulatorStore store, HostComputeNetwork net) {
        return store.endpointsOf(net.id()).stream().filter(e -> !e.isRemote()).toList();
    }

    private static Optional<HostComputeEndpoint> findLocal(EmulatorStore store, HostComputeNetwork net, String ip) {
        return store.endpointsWithIp(net.id(), ip).stream().filter(e -> !e.isRemote()).findFirst();
    }

    private static int prefixLength(HostComputeNetwork net, String ip) {
        return net.subnetPrefixes().stream().filter(p -> Ipv4.contains(p, ip)).findFirst()
                .map(Ipv4::prefixLength).orElse(32);
    }

    /** flannel's distributed-router MAC convention: {@code 0E-2A-} followed by the IPv4 octets in hex. */
    static String drMac(String ip) {
        return Ipv4.parse(ip).map(v -> String.format(Locale.ROOT, "0E-2A-%02X-%02X-%02X-%02X",
                (v >> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255)).orElse("");
    }
}
