package io.winproxy.agent.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.demo.ExampleCluster;
import io.winproxy.agent.demo.ManifestLoader;
import io.winproxy.agent.demo.ManifestProblem;
import io.winproxy.agent.demo.ManifestSet;
import io.winproxy.agent.kube.EndpointSliceMapper;
import io.winproxy.agent.kube.NodeMapper;
import io.winproxy.agent.kube.ServiceMapper;
import io.winproxy.agent.logging.LoggingSetup;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.sync.HostMac;
import io.winproxy.agent.sync.HostView;
import io.winproxy.agent.sync.NodeIpUnknownException;
import io.winproxy.agent.sync.NodeNetworkFactory;
import io.winproxy.agent.sync.PolicySnapshot;
import io.winproxy.agent.sync.VfpPolicyEngine;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The read-only model behind {@code plan} and {@code trace}: manifests read with fabric8's serialization and mapped
 * through the agent's mappers into the policy, an HNS host (the node's real HNS with an explicit
 * {@code --hns windows}, the emulated host of {@code --hns-state}, or a fresh
 * emulated network built from the Nodes) observed through the dataplane, the desired state and the plan. Nothing is
 * written: the emulated state file is only read and the ownership journal is never flushed. On the node's real HNS
 * the host MAC is looked up as the agent does (so the overlay ClusterIP endpoints are planned); a fresh emulated
 * network gets a host endpoint that serves as the root endpoint unless {@code --root-hnsendpoint-name} is given.
 *
 * @param fromHnsState true when the host came from {@code --hns-state} or {@code --hns windows} (the trace then
 *                     follows what HNS holds)
 */
record OfflineModel(ProxyConfig config, PolicySnapshot snapshot, Plan plan, ObservedState observed, NodeNetwork node,
                    boolean fromHnsState) {

    static OfflineModel compute(CliContext context, ProxyFlags flags, HnsHostOptions host, Path manifests)
            throws ConfigException {
        Path dir = manifests != null ? manifests : extractExample();
        if (!Files.isDirectory(dir)) {
            throw new UsageException("--manifests: " + dir + " is not a directory");
        }
        ManifestSet set = new ManifestLoader().load(dir);
        for (ManifestProblem problem : set.problems()) {
            if (problem.fatal()) {
                throw new UsageException("--manifests: " + problem);
            }
            context.err().println("winproxy: warning: " + problem);
        }
        if (!flags.isSet("--hostname-override")) {
            flags.set("--hostname-override", defaultNode(set));
        }
        // Flag and gate errors (e.g. --enable-dsr with WinDSR=false) fail before any host is built or logged about.
        LoadBalancerFeatures.checkGates(ConfigResolver.resolve(flags, context.env()));
        List<String> warnings = new ArrayList<>();
        NodeMapper nodeMapper = new NodeMapper(warnings::add);
        ServiceMapper serviceMapper = new ServiceMapper(warnings::add);
        EndpointSliceMapper sliceMapper = new EndpointSliceMapper(warnings::add);
        List<NodeInfo> nodes = new ArrayList<>();
        for (Node n : set.nodes()) {
            nodeMapper.map(n).ifPresent(nodes::add);
        }
        List<ServiceInfo> services = new ArrayList<>();
        for (Service s : set.services()) {
            serviceMapper.map(s).ifPresent(services::add);
        }
        List<EndpointSliceInfo> slices = new ArrayList<>();
        for (EndpointSlice s : set.endpointSlices()) {
            sliceMapper.map(s).ifPresent(slices::add);
        }
        warnings.forEach(w -> context.err().println("winproxy: warning: " + w));

        String nodeName = flags.get("--hostname-override").orElseThrow().trim().toLowerCase(java.util.Locale.ROOT);
        HnsClient hns;
        String networkName;
        boolean realHns = host.explicitlyWindows();
        boolean fromState = realHns || host.hnsState().isPresent();
        if (realHns) {
            // Read-only against the node's HNS: the network must be named as for the proxy.
            hns = host.open();
            networkName = networkName(flags, context, hns);
            if (!flags.isSet("--network-name")) {
                flags.set("--network-name", networkName);
            }
        } else if (fromState) {
            if (!Files.isRegularFile(host.hnsState().get())) {
                throw new UsageException("--hns-state: " + host.hnsState().get() + " does not exist");
            }
            hns = HnsEmulator.builder().stateFile(host.hnsState().get()).build();
            networkName = networkName(flags, context, hns);
            if (!flags.isSet("--network-name")) {
                flags.set("--network-name", networkName);
            }
            boolean overlay = hns.getNetworkByName(networkName).map(HostComputeNetwork::isOverlay).orElse(false);
            if (overlay && !flags.isSet("--source-vip")) {
                DemoCommand.sourceVipFor(nodes, nodeName).ifPresent(vip -> flags.set("--source-vip", vip));
            }
        } else {
            HnsEmulator emulator = HnsEmulator.inMemory();
            hns = emulator;
            if (host.emulatedNetworkType() == HnsHostOptions.NetworkKind.overlay && !flags.isSet("--source-vip")) {
                DemoCommand.sourceVipFor(nodes, nodeName).ifPresent(vip -> flags.set("--source-vip", vip));
            }
            String sourceVip = flags.get("--source-vip").orElse("");
            EmulatedHost emulated = EmulatedCluster.fresh(emulator, host.emulatedNetworkType(),
                    flags.get("--network-name").orElse(null), nodeName, nodes, slices, sourceVip);
            networkName = emulated.networkName();
            if (!flags.isSet("--network-name")) {
                flags.set("--network-name", networkName);
            }
            if (!flags.isSet("--root-hnsendpoint-name")) {
                // The fresh host's own endpoint in the pod network (the second address of this node's pod CIDR,
                // like the CNI's host endpoint) is the root endpoint health-check load balancers forward to.
                DemoCommand.sourceVipFor(nodes, nodeName).ifPresent(ip -> flags.set("--root-hnsendpoint-name",
                        emulated.ensureHostEndpoint(sourceVip.isEmpty() ? ip : sourceVip).name()));
            }
        }
        ProxyConfig config = ConfigResolver.resolve(flags, context.env());
        LoggingSetup.configure(config.logging());

        OwnershipJournal journal = host.stateDirGiven() || realHns ? OwnershipJournal.open(host.stateDir(context.env()))
                : OwnershipJournal.inMemory();
        HnsDataplane dataplane = new HnsDataplane(hns, networkName, journal, config.syncPeriod(), System::nanoTime);
        ObservedState observed = dataplane.observe();
        HostComputeNetwork network = dataplane.network().orElseThrow();

        HnsCapabilities caps = hns.capabilities();
        Set<String> gates = config.featureGates().effective().entrySet().stream().filter(Map.Entry::getValue)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        PolicyConfig policyConfig = new PolicyConfig(config.forwardHealthCheckVip(),
                config.healthzPort().orElse(10256), caps.dsr(), caps.ipv6DualStack(), caps.sessionAffinity(),
                caps.modifyLoadBalancer(), gates, PolicyConfig.DEFAULT_MAX_BACKENDS);
        String nodeIp = "0.0.0.0".equals(config.bindAddress()) || "::".equals(config.bindAddress())
                ? "" : config.bindAddress();
        VfpPolicyEngine engine = new VfpPolicyEngine(
                new PolicyCalculator(policyConfig, LoadBalancerFeatures.of(config, caps)),
                new NodeNetworkFactory(config.hostnameOverride(), config.sourceVip(), config.rootHnsEndpointName(),
                        nodeIp, realHns ? HostMac::of : ip -> ""), AgentMetrics.NOOP, Instant.EPOCH);
        nodes.stream().filter(n -> n.name().equals(config.hostnameOverride())).findFirst()
                .ifPresent(engine::onNode);
        services.forEach(s -> engine.onService(null, s));
        slices.forEach(s -> engine.onEndpointSlice(null, s));
        PolicySnapshot snapshot;
        try {
            snapshot = engine.compute(new HostView(network, dataplane.endpoints()));
        } catch (NodeIpUnknownException e) {
            throw new UsageException("--hostname-override: " + e.getMessage()
                    + "; add the Node to the manifests or pass --bind-address");
        }
        Plan plan = engine.plan(snapshot.desired(), observed, journal.ownership(), dataplane.modifySupported());
        return new OfflineModel(config, snapshot, plan, observed, engine.lastNodeNetwork(), fromState);
    }

    private static String networkName(ProxyFlags flags, CliContext context, HnsClient hns) {
        if (flags.isSet("--network-name")) {
            return flags.get("--network-name").get();
        }
        String env = context.env().getOrDefault("KUBE_NETWORK", "");
        if (!env.isEmpty()) {
            return env;
        }
        List<HostComputeNetwork> networks = hns.listNetworks();
        if (networks.size() == 1) {
            return networks.get(0).name();
        }
        throw new UsageException("--network-name: the host has " + networks.size()
                + " networks; name the one to use");
    }

    private static String defaultNode(ManifestSet set) {
        List<String> names = set.nodes().stream().map(n -> n.getMetadata().getName()).toList();
        if (names.contains(ExampleCluster.defaultNodeName()) || names.isEmpty()) {
            return ExampleCluster.defaultNodeName();
        }
        return names.get(0);
    }

    private static Path extractExample() {
        try {
            return ExampleCluster.extractTo(Files.createTempDirectory("winproxy-example-cluster"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the example cluster: " + e.getMessage(), e);
        }
    }
}
