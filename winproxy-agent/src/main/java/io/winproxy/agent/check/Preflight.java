package io.winproxy.agent.check;

import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.LoadBalancerFeatures;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.NodeNetworkFactory;
import io.winproxy.dsr.DsrConfigurationException;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The preflight group: is this node fit to run the proxy? The HNS network ({@code --network-name}: exists, is the
 * CNI's pod network and not the vSwitch-only {@code External} one, is of a type the proxy programs), on overlay the
 * source VIP and the host MAC, the HNS version against what the flags ask, the state directory
 * ({@link StateDirectoryCheck}) and the cluster (the API server answers, the Node object exists). Read only.
 */
public final class Preflight {
    private static final CheckGroup G = CheckGroup.preflight;
    /** The name flannel's and sig-windows-tools' install scripts give the network that only keeps the vSwitch. */
    static final String VSWITCH_NETWORK = "External";

    /**
     * What preflight looks at.
     *
     * @param config   the proxy's configuration (network name, source VIP, DSR, bind address)
     * @param hns      the node's HNS (or the emulated host)
     * @param emulated true when {@code hns} is an emulated host (a missing {@code --network-name} then means its only
     *                 network, as {@code plan} reads it)
     * @param nodeName this node
     * @param cluster  how the cluster was read
     * @param hostMac  the host-MAC port that goes with {@code hns}
     * @param stateDir the state directory check, run as part of this group
     */
    public record Inputs(ProxyConfig config, HnsClient hns, boolean emulated, String nodeName, ClusterRead cluster,
                         HostMacLookup hostMac, StateDirectoryCheck stateDir, boolean readEndpoints) {
        /** The command's preflight, which reads the network's endpoints to find the source VIP. */
        public Inputs(ProxyConfig config, HnsClient hns, boolean emulated, String nodeName, ClusterRead cluster,
                      HostMacLookup hostMac, StateDirectoryCheck stateDir) {
            this(config, hns, emulated, nodeName, cluster, hostMac, stateDir, true);
        }
    }

    /** The results, and the network the other groups may use (empty when preflight found none usable). */
    public record Outcome(List<CheckResult> results, Optional<HostComputeNetwork> network) {
    }

    private Preflight() {
    }

    public static Outcome run(Inputs in) {
        List<CheckResult> out = new ArrayList<>();
        Optional<HostComputeNetwork> network = network(in, out);
        network.ifPresent(net -> overlay(in, net, out));
        hnsVersion(in, out);
        out.addAll(in.stateDir().run());
        cluster(in, out);
        return new Outcome(out, network);
    }

    private static Optional<HostComputeNetwork> network(Inputs in, List<CheckResult> out) {
        List<HostComputeNetwork> networks;
        try {
            networks = in.hns().listNetworks();
        } catch (HnsException e) {
            out.add(CheckResult.fail(G, "hns", "HNS does not answer: " + HnsErrorText.of(e),
                    "the Host Networking Service is stopped, restarting or not installed",
                    "Get-Service hns; Restart-Service hns (docs/troubleshooting.md#hns-does-not-answer)"));
            return Optional.empty();
        }
        List<String> names = networks.stream().map(HostComputeNetwork::name).toList();
        String wanted = in.config().networkName();
        HostComputeNetwork net;
        if (wanted.isEmpty()) {
            if (!in.emulated() || networks.size() != 1) {
                out.add(CheckResult.fail(G, "network", "--network-name is not set (networks on this host: "
                                + names + ")", "the proxy needs the name of the CNI's HNS network and refuses to start"
                                + " without it",
                        "set --network-name (or KUBE_NETWORK) to the CNI's network"
                                + " (docs/troubleshooting.md#network-not-found)"));
                return Optional.empty();
            }
            net = networks.get(0);
        } else {
            net = networks.stream().filter(n -> wanted.equalsIgnoreCase(n.name())).findFirst().orElse(null);
            if (net == null) {
                out.add(CheckResult.fail(G, "network", "HNS network " + wanted + " does not exist (networks on this"
                                + " host: " + names + ")", "the CNI has not created it yet, or --network-name names"
                                + " another network",
                        "start the CNI (a pod on the node creates it), or set --network-name to one of " + names
                                + " (docs/troubleshooting.md#network-not-found)"));
                return Optional.empty();
            }
        }
        if (VSWITCH_NETWORK.equalsIgnoreCase(net.name())) {
            out.add(CheckResult.fail(G, "network", "HNS network " + net.name() + " (" + net.type() + ", " + net.id()
                            + ") is the vSwitch-only network, not the CNI's pod network (networks on this host: "
                            + names + ")", "the install scripts create '" + VSWITCH_NETWORK + "' only to keep the"
                            + " Hyper-V switch; Services programmed there reach no pod",
                    "set --network-name to the CNI's network (flannel: cbr0 or vxlan0; Calico: Calico) and start the"
                            + " CNI if it is missing (docs/troubleshooting.md#external-network)").on(net.id()));
            return Optional.empty();
        }
        if (!net.isOverlay() && !net.isL2Bridge()) {
            out.add(CheckResult.fail(G, "network", "HNS network " + net.name() + " is of type " + net.type()
                            + "; winproxy programs L2Bridge and Overlay networks",
                    "a NAT, ICS or Transparent network is not a Kubernetes pod network",
                    "set --network-name to the CNI's L2Bridge or Overlay network"
                            + " (docs/troubleshooting.md#network-type)").on(net.id()));
            return Optional.empty();
        }
        out.add(CheckResult.pass(G, "network", "HNS network " + net.name() + " exists (" + net.type() + ", "
                + net.id() + ")").on(net.id()));
        if (net.isL2Bridge() && !in.config().sourceVip().isEmpty()) {
            out.add(CheckResult.warn(G, "network-type", "--source-vip " + in.config().sourceVip() + " is set but "
                            + net.name() + " is an L2Bridge network", "the source VIP is used on overlay only",
                    "remove --source-vip, or check that --network-name names the overlay network"
                            + " (docs/troubleshooting.md#network-type)"));
        }
        return Optional.of(net);
    }

    /** Overlay: the source VIP is a local endpoint of the network, and an interface holds the node IP. */
    private static void overlay(Inputs in, HostComputeNetwork net, List<CheckResult> out) {
        if (!net.isOverlay()) {
            return;
        }
        if (!in.readEndpoints()) {
            // The agent's start: reading every endpoint document of the network (100,000 remote endpoints at 10,000
            // Services) to find one address would double the start's HNS reads and memory; its first sync ensures
            // the source VIP endpoint itself and says so in its log and on /statusz.
            String configured = in.config().sourceVip();
            out.add(CheckResult.pass(G, "source-vip", configured.isEmpty()
                    ? "no --source-vip: the first sync takes the CNI's " + net.name() + "_ep endpoint or has HNS"
                            + " assign one ('winproxy check' shows which)"
                    : "--source-vip " + configured + ": the first sync ensures its endpoint on " + net.name()));
        } else {
            overlaySourceVip(in, net, out);
        }
        hostMac(in, net, out);
    }

    /** The source VIP is a local endpoint of the network (read from the network's endpoint documents). */
    private static void overlaySourceVip(Inputs in, HostComputeNetwork net, List<CheckResult> out) {
        List<HostComputeEndpoint> endpoints;
        try {
            endpoints = in.hns().listEndpoints(net.id());
        } catch (HnsException e) {
            out.add(CheckResult.fail(G, "source-vip", "cannot list the endpoints of " + net.name() + ": "
                    + HnsErrorText.of(e), "HNS failed the read", "retry; docs/troubleshooting.md#hns-does-not-answer"));
            return;
        }
        String vip = in.config().sourceVip();
        String from = "--source-vip";
        if (vip.isEmpty()) {
            vip = NodeNetworkFactory.cniSourceVip(net, endpoints).orElse("");
            String found = vip;
            boolean assigned = endpoints.stream().anyMatch(e -> HnsDataplane.SOURCE_VIP_ENDPOINT_NAME.equals(e.name())
                    && e.ipAddress().filter(found::equals).isPresent());
            from = assigned ? "assigned by HNS to winproxy's " + HnsDataplane.SOURCE_VIP_ENDPOINT_NAME + " endpoint"
                    : "the CNI's " + net.name() + "_ep endpoint";
        }
        if (vip.isEmpty()) {
            out.add(CheckResult.warn(G, "source-vip", "no source VIP on overlay network " + net.name() + " yet",
                    "--source-vip is not set and no " + net.name() + "_ep endpoint of the CNI holds one; the"
                            + " proxy asks HNS to assign one from the network's subnet at its first sync",
                    "nothing, unless the cluster reserves the source VIP elsewhere (sourceVip.json): then give"
                            + " --source-vip (docs/troubleshooting.md#source-vip)"));
        } else {
            String ip = vip;
            Optional<HostComputeEndpoint> holder = endpoints.stream().filter(e -> !e.isRemote())
                    .filter(e -> e.ipAddress().filter(ip::equals).isPresent()).findFirst();
            if (holder.isPresent()) {
                out.add(CheckResult.pass(G, "source-vip", "source VIP " + vip + " (" + from + ") is HNS endpoint "
                        + holder.get().id() + " on " + net.name()).on(holder.get().id()));
            } else {
                out.add(CheckResult.warn(G, "source-vip", "source VIP " + vip + " (" + from + ") is no HNS endpoint"
                                + " on " + net.name() + " yet", "the proxy creates it on its first sync; until then"
                                + " overlay Services have no SNAT address",
                        "start the proxy; if this stays, compare --source-vip with the network's subnets"
                                + " (docs/troubleshooting.md#source-vip)"));
            }
        }
    }

    /** Overlay: an interface holds the node IP (its MAC goes into the source-VIP and remote endpoints). */
    private static void hostMac(Inputs in, HostComputeNetwork net, List<CheckResult> out) {
        String nodeIp = nodeIp(in, net);
        if (nodeIp.isEmpty()) {
            out.add(CheckResult.fail(G, "host-mac", "the node IP of " + in.nodeName() + " is unknown",
                    "the Node object has no InternalIP, --bind-address names none and " + net.name()
                            + " has no provider address", "set --bind-address to the node IP"
                            + " (docs/troubleshooting.md#host-mac)"));
            return;
        }
        String mac = in.hostMac().macOf(nodeIp);
        if (mac.isEmpty()) {
            out.add(CheckResult.fail(G, "host-mac", "no network interface of this host holds the node IP " + nodeIp,
                    "on overlay the host MAC goes into the source-VIP endpoint and the ClusterIP remote endpoints;"
                            + " without it the proxy programs nothing",
                    "check that the Node's InternalIP is this host's address (ipconfig), or set --bind-address to it"
                            + " (docs/troubleshooting.md#host-mac)"));
        } else {
            out.add(CheckResult.pass(G, "host-mac", "node IP " + nodeIp + " is on an interface with MAC " + mac));
        }
    }

    private static String nodeIp(Inputs in, HostComputeNetwork net) {
        return NodeNetworkFactory.primaryNodeIp(NodeFacts.nodeIpOverride(in.config().bindAddress()),
                in.cluster().node(in.nodeName()).orElse(null), net);
    }

    private static void hnsVersion(Inputs in, List<CheckResult> out) {
        HnsCapabilities caps;
        try {
            caps = in.hns().capabilities();
        } catch (HnsException e) {
            out.add(CheckResult.fail(G, "hns-version", "cannot read the HNS version: " + HnsErrorText.of(e),
                    "HNS does not answer", "docs/troubleshooting.md#hns-does-not-answer"));
            return;
        }
        String features = "DSR " + yes(caps.dsr()) + ", modify " + yes(caps.modifyLoadBalancer()) + ", IPv6 "
                + yes(caps.ipv6DualStack()) + ", session affinity " + yes(caps.sessionAffinity());
        if (caps.version().equals(HnsFeatures.UNKNOWN_VERSION)) {
            out.add(CheckResult.warn(G, "hns-version", "the HNS version could not be read (" + features + ")",
                    "the version probe failed, so every optional feature is taken as missing",
                    "check that vmcompute.dll is present (Windows Server 2019 or later)"
                            + " (docs/troubleshooting.md#hns-version)"));
        } else {
            out.add(CheckResult.pass(G, "hns-version", "HNS " + caps.version() + ": " + features));
        }
        try {
            LoadBalancerFeatures.of(in.config(), caps);
            if (in.config().enableDsr()) {
                out.add(CheckResult.pass(G, "dsr", "--enable-dsr: HNS " + caps.version() + " supports DSR"));
            }
        } catch (DsrConfigurationException e) {
            out.add(CheckResult.fail(G, "dsr", "--enable-dsr cannot be honoured: " + e.getMessage(),
                    "the proxy refuses to start with DSR asked and not available",
                    "remove --enable-dsr, or run Windows Server 2019 with the DSR update or later"
                            + " (docs/troubleshooting.md#hns-version)"));
        }
        boolean wantsIpv6 = in.config().clusterCidrs().stream().anyMatch(c -> c.contains(":"))
                || in.cluster().node(in.nodeName()).map(n -> n.internalIps().stream().anyMatch(ip -> ip.contains(":")))
                .orElse(false);
        if (wantsIpv6 && !caps.ipv6DualStack()) {
            out.add(CheckResult.warn(G, "ipv6", "the node or --cluster-cidr is IPv6 but HNS " + caps.version()
                            + " has no dual-stack support", "IPv6 Services are not programmed on this node",
                    "run Windows Server 2022 or later for dual-stack (docs/troubleshooting.md#hns-version)"));
        }
        List<String> sticky = in.cluster().services().stream()
                .filter(s -> "ClientIP".equals(s.sessionAffinity())).map(s -> s.namespace() + "/" + s.name())
                .toList();
        if (!sticky.isEmpty() && !caps.sessionAffinity()) {
            out.add(CheckResult.warn(G, "session-affinity", sticky.size() + " Service(s) ask for sessionAffinity"
                            + " ClientIP (" + String.join(", ", sticky.subList(0, Math.min(3, sticky.size())))
                            + ") but HNS " + caps.version() + " has no session affinity",
                    "their connections are spread without affinity",
                    "run a Windows build with HNS session affinity (docs/troubleshooting.md#hns-version)"));
        }
    }

    private static void cluster(Inputs in, List<CheckResult> out) {
        ClusterRead c = in.cluster();
        if (!c.error().isEmpty()) {
            out.add(CheckResult.fail(G, "api-server", "cannot read the cluster from " + c.source() + ": " + c.error(),
                    "the API server does not answer, or this node's credentials are refused",
                    "check --kubeconfig / --master and the node's credentials (docs/troubleshooting.md#api-server)"));
            return;
        }
        out.add(CheckResult.pass(G, "api-server", c.live() ? "the API server (" + c.source() + ") answered with this"
                + " node's credentials" : c.source() + " read: " + c.services().size() + " Services, "
                + c.nodes().size() + " Nodes"));
        if (c.node(in.nodeName()).isPresent()) {
            out.add(CheckResult.pass(G, "node", "Node " + in.nodeName() + " exists"));
        } else {
            out.add(CheckResult.fail(G, "node", "Node " + in.nodeName() + " does not exist in " + c.source(),
                    "--hostname-override (or the host name) does not name this node's Node object",
                    "set --hostname-override to the Node's name, as kubelet registers it"
                            + " (docs/troubleshooting.md#node-not-found)"));
        }
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }
}
