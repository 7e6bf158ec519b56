package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.DriftBudget;
import io.winproxy.agent.dataplane.HcnTranslator;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.logging.KlogRefs;
import io.winproxy.agent.logging.LoggingSetup;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.LoadBalancerFeatures;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.pipeline.ProxyPipeline;
import io.winproxy.agent.sync.NodeIpUnknownException;
import io.winproxy.agent.sync.PolicySnapshot;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.tracking.ProxyState;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only model behind {@code plan} and {@code trace}: the proxy's own pipeline ({@link ProxyPipeline}) run
 * once. Inputs resolve as the proxy resolves them: the configuration from the flags and {@code --config}; the
 * cluster from the API server, or offline from {@code --manifests} / {@code --example-cluster}
 * ({@link ClusterSourceOptions}); the host is the node's HNS (on Windows, or {@code --hns windows}) with the
 * ownership journal of {@code --state-dir} or its default, the emulated host of {@code --hns-state FILE} with the
 * journal beside it, or, elsewhere, a fresh emulated network built from the Nodes. Nothing is written: the emulated
 * state is only read, the journal never flushed, and the source-VIP endpoint never created.
 *
 * @param fromHnsState true when the host is an existing one (the trace then follows what HNS holds)
 * @param state        the trackers' state (service ports and endpoints) the evaluation applied
 * @param journal      the ownership journal read (in memory for a fresh emulated host)
 * @param nodeName     this node
 * @param inputs       where the cluster, the host and the journal came from, one phrase ({@code winproxy status})
 */
public record OfflineModel(ProxyConfig config, PolicySnapshot snapshot, Plan plan, ObservedState observed,
                           NodeNetwork node, boolean fromHnsState, HnsClient hns, ProxyState state,
                           OwnershipJournal journal, String nodeName, String inputs) {
    private static final Logger logger = LoggerFactory.getLogger(OfflineModel.class);

    public static OfflineModel compute(CliContext context, ProxyFlags flags, HnsHostOptions host,
                                ClusterSourceOptions source) throws ConfigException {
        ProxyConfig config = ConfigResolver.resolve(flags, context.env());
        // Flag and gate errors (e.g. --enable-dsr with WinDSR=false) fail before any host is built or logged about.
        LoadBalancerFeatures.checkGates(config);
        LoggingSetup.configure(config.logging());
        config.warnings().forEach(w -> logger.atWarn().setMessage(KlogRefs.capitalize(w)).log());

        ClusterObjects objects;
        String nodeName;
        if (source.offline()) {
            objects = source.readFiles(context);
            nodeName = offlineNodeName(config, objects);
        } else {
            nodeName = config.hostnameOverride();
            objects = ClusterSourceOptions.list(config, ProxyPipeline.watchOptions(config, nodeName));
        }
        List<String> warnings = new ArrayList<>();
        ClusterObjects.Mapped cluster = objects.selected(ProxyPipeline.watchOptions(config, nodeName))
                .mapped(warnings::add);
        warnings.forEach(w -> context.err().println("winproxy: warning: " + w));

        NodeFacts node = NodeFacts.of(config, config.networkName()).withNodeName(nodeName);
        HnsClient hns;
        OwnershipJournal journal;
        boolean existingHost = host.effectiveHns() == HnsHostOptions.HnsKind.windows || host.hnsState().isPresent();
        if (existingHost) {
            if (host.hnsState().isPresent() && !Files.isRegularFile(host.hnsState().get())) {
                throw new UsageException("--hns-state: " + host.hnsState().get() + " does not exist");
            }
            hns = host.openExisting();
            node = node.withNetworkName(networkName(config, hns));
            boolean overlay = hns.getNetworkByName(node.networkName()).map(HostComputeNetwork::isOverlay)
                    .orElse(false);
            if (overlay && node.sourceVip().isEmpty() && host.effectiveHns() == HnsHostOptions.HnsKind.emulated) {
                node = node.withSourceVip(EmulatedCluster.sourceVipFor(cluster.nodes(), nodeName).orElse(""));
            }
            // The journal of this host, read-only: what winproxy owns there decides adoption and deletion.
            journal = OwnershipJournal.readOnly(host.stateDir(context.env()));
        } else {
            HnsEmulator emulator = HnsEmulator.inMemory();
            hns = emulator;
            String sourceVip = node.sourceVip();
            if (sourceVip.isEmpty() && host.emulatedNetworkType() == HnsHostOptions.NetworkKind.overlay) {
                sourceVip = EmulatedCluster.sourceVipFor(cluster.nodes(), nodeName).orElse("");
            }
            EmulatedHost emulated = EmulatedCluster.fresh(emulator, host.emulatedNetworkType(),
                    config.networkName().isEmpty() ? null : config.networkName(), nodeName, cluster.nodes(),
                    cluster.endpointSlices(), sourceVip);
            node = node.withNetworkName(emulated.networkName()).withSourceVip(sourceVip);
            if (!hasEndpointNamed(emulator, emulated, node.rootEndpointName())) {
                // The fresh host's own endpoint in the pod network (the second address of this node's pod CIDR, like
                // the CNI's host endpoint) is the root endpoint health-check load balancers forward to.
                String hostIp = sourceVip.isEmpty() ? EmulatedCluster.sourceVipFor(cluster.nodes(), nodeName)
                        .orElse("") : sourceVip;
                if (!hostIp.isEmpty()) {
                    node = node.withRootEndpointName(emulated.ensureHostEndpoint(hostIp).name());
                }
            }
            journal = OwnershipJournal.inMemory();
        }
        HostMacLookup hostMac = host.hostMacLookup();
        ProxyPipeline pipeline = ProxyPipeline.build(new ProxyPipeline.Inputs(config, node, hns, journal, hostMac,
                AgentMetrics.NOOP, DriftBudget.DEFAULT, Instant.EPOCH));
        ProxyPipeline.Evaluation result;
        try {
            result = pipeline.evaluate(cluster);
        } catch (NodeIpUnknownException e) {
            throw new UsageException("--hostname-override: " + e.getMessage()
                    + "; add the Node to the cluster or pass --bind-address");
        }
        NodeNetwork nodeNetwork = result.node();
        if (nodeNetwork != null && nodeNetwork.lacksSourceVip()) {
            context.err().println("winproxy: warning: --source-vip: network " + nodeNetwork.networkName()
                    + " is an overlay network and no source VIP is known (nor a " + nodeNetwork.networkName()
                    + "_ep endpoint of the CNI): the proxy would program nothing; shown without SNAT");
        }
        if (nodeNetwork != null && nodeNetwork.lacksHostMac()) {
            context.err().println("winproxy: warning: network " + nodeNetwork.networkName() + " is an overlay network "
                    + "and no local interface holds the node IP " + nodeNetwork.nodeIps().values()
                    + ": the host MAC is unknown and the proxy would program nothing");
        }
        String clusterFrom = source.offline() ? source.describe() : "the API server";
        String hostFrom = host.hnsState().map(f -> "the emulated HNS in " + f)
                .orElse(existingHost ? "this node's HNS" : "a fresh emulated HNS built from the Nodes");
        String journalFrom = existingHost ? "the journal in " + host.stateDir(context.env()) : "no journal";
        return new OfflineModel(config, result.snapshot(), result.plan(), result.observed(), result.node(),
                existingHost, hns, result.state(), journal, nodeName, clusterFrom + ", " + hostFrom + " and "
                + journalFrom);
    }

    /**
     * The observed state with the documents of the load balancers a packet to {@code port}/{@code protocol} may hit
     * read from HNS. The reconcile knows owned load balancers by the journal's fingerprint, not by their endpoint
     * references; a trace explains what HNS holds, so it reads those few documents (one call each).
     */
    ObservedState withLoadBalancersRead(int port, Protocol protocol) {
        Map<String, List<String>> ipsById = new HashMap<>();
        observed.endpoints().forEach(e -> ipsById.put(e.id(), e.ips()));
        List<ObservedLoadBalancer> lbs = new ArrayList<>();
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            boolean candidate = lb.key() != null && lb.key().externalPort() == port && lb.key().protocol() == protocol;
            lbs.add(candidate ? hns.getLoadBalancer(lb.id()).map(doc -> HcnTranslator.toObserved(doc, ipsById))
                    .orElse(lb) : lb);
        }
        return new ObservedState(observed.endpoints(), lbs);
    }

    /** This node offline: the configured name, else win-node-1 when the manifests have it, else the first Node. */
    private static String offlineNodeName(ProxyConfig config, ClusterObjects objects) {
        String configured = config.configuredHostnameOverride().trim().toLowerCase(Locale.ROOT);
        if (!configured.isEmpty()) {
            return configured;
        }
        return EmulatedCluster.defaultNodeName(objects.nodes().stream().map(n -> n.getMetadata().getName())
                .map(n -> n.toLowerCase(Locale.ROOT)).toList());
    }

    private static boolean hasEndpointNamed(HnsEmulator hns, EmulatedHost host, String name) {
        if (name.isEmpty()) {
            return false;
        }
        String network = hns.getNetworkByName(host.networkName()).map(HostComputeNetwork::id).orElseThrow();
        return hns.listEndpoints(network).stream().map(HostComputeEndpoint::name).anyMatch(n -> n != null && n.equalsIgnoreCase(name));
    }

    /** The network: as configured (flag, file or KUBE_NETWORK), else the host's only network. */
    private static String networkName(ProxyConfig config, HnsClient hns) {
        if (!config.networkName().isEmpty()) {
            return config.networkName();
        }
        List<HostComputeNetwork> networks = hns.listNetworks();
        if (networks.size() == 1) {
            return networks.get(0).name();
        }
        throw new UsageException("--network-name: the host has " + networks.size()
                + " networks; name the one to use");
    }
}
