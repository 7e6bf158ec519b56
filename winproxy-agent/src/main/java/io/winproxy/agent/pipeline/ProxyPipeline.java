package io.winproxy.agent.pipeline;

import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.dataplane.DriftBudget;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.agent.kube.WatchOptions;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.sync.HostView;
import io.winproxy.agent.sync.NodeNetworkFactory;
import io.winproxy.agent.sync.PolicySnapshot;
import io.winproxy.agent.sync.VfpPolicyEngine;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.tracking.ProxyState;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * The one composition of the proxy's pipeline: trackers -> policy (+ load-balancer features) -> plan, on an HNS
 * dataplane, for the running agent, {@code demo}, {@code plan} and {@code trace} alike. Everything that decides what
 * is programmed is chosen here once: the policy settings from the configuration and HNS's capabilities, the features
 * (DSR), the node network (source VIP, root endpoint, node-IP override, host MAC through {@link HostMacLookup}), the
 * watch selection ({@link WatchOptions}: service-proxy-name and headless), and the dataplane over the ownership
 * journal.
 *
 * <p>The agent feeds the {@link #engine()} from informers and runs the dataplane from its sync loop (which also
 * creates the overlay source-VIP endpoint); the read-only tools call {@link #evaluate} once, which only reads HNS.
 */
public final class ProxyPipeline {
    /**
     * @param config  the proxy's configuration
     * @param node    this node's facts (name, network, source VIP, root endpoint, node-IP override)
     * @param hns     the HNS to observe (and, for the agent, to program)
     * @param journal the ownership journal (opened from the state directory, or in memory)
     * @param hostMac the host-MAC port chosen with the HNS
     * @param metrics where the engine reports (the agent's metrics, or {@link AgentMetrics#NOOP})
     * @param drift   the content-drift budget of the dataplane
     * @param start   the start time (endpoint-change latency is measured from it)
     */
    public record Inputs(ProxyConfig config, NodeFacts node, HnsClient hns, OwnershipJournal journal,
                         HostMacLookup hostMac, AgentMetrics metrics, DriftBudget drift, Instant start) {
        public Inputs {
            Objects.requireNonNull(config);
            Objects.requireNonNull(node);
            Objects.requireNonNull(hns);
            Objects.requireNonNull(journal);
            hostMac = hostMac == null ? HostMacLookup.NONE : hostMac;
            metrics = metrics == null ? AgentMetrics.NOOP : metrics;
            drift = drift == null ? DriftBudget.DEFAULT : drift;
            start = start == null ? Instant.EPOCH : start;
        }
    }

    /** What {@link #evaluate} found: the desired state, the host as observed, and the plan between them. */
    public record Evaluation(PolicySnapshot snapshot, ObservedState observed, Plan plan, NodeNetwork node,
                             ProxyState state) {
    }

    private final Inputs inputs;
    private final VfpPolicyEngine engine;
    private final HnsDataplane dataplane;
    private final WatchOptions watch;

    private ProxyPipeline(Inputs in) {
        this.inputs = in;
        ProxyConfig config = in.config();
        HnsCapabilities caps = in.hns().capabilities();
        Set<String> gates = config.featureGates().effective().entrySet().stream().filter(Map.Entry::getValue)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        PolicyConfig policyConfig = new PolicyConfig(config.forwardHealthCheckVip(),
                config.healthzPort().orElse(10256), caps.dsr(), caps.ipv6DualStack(), caps.sessionAffinity(),
                caps.modifyLoadBalancer(), gates, PolicyConfig.DEFAULT_MAX_BACKENDS);
        NodeFacts node = in.node();
        NodeNetworkFactory nodeNetworks = new NodeNetworkFactory(node.nodeName(), node.sourceVip(),
                node.rootEndpointName(), node.nodeIpOverride(), in.hostMac()::macOf);
        // Health and metrics report IPv4 until the first sync; from then on the families each sync decides (IPv6 too
        // when HNS supports dual-stack, the network is not overlay and the node has an IPv6 address).
        this.engine = new VfpPolicyEngine(new PolicyCalculator(policyConfig, LoadBalancerFeatures.of(config, caps)),
                nodeNetworks, in.metrics(), in.start(), caps.ipv6DualStack());
        this.dataplane = new HnsDataplane(in.hns(), node.networkName(), in.journal(), config.syncPeriod(),
                System::nanoTime, in.drift(), () -> HnsIds.newId(ThreadLocalRandom.current()));
        this.watch = watchOptions(config, node.nodeName());
    }

    /** The API client settings of the configuration: kube-proxy's {@code clientConnection} and {@code --master}. */
    public static KubeClientSettings clientSettings(ProxyConfig config) {
        return new KubeClientSettings(config.kubeconfig(), config.master(), config.clientConnection().contentType(),
                config.clientConnection().acceptContentTypes(), config.clientConnection().qps(),
                config.clientConnection().burst());
    }

    /** What the proxy on {@code nodeName} watches: the one rule for the agent's informers and the offline tools. */
    public static WatchOptions watchOptions(ProxyConfig config, String nodeName) {
        return new WatchOptions(nodeName, config.serviceProxyName(), config.configSyncPeriod());
    }

    /**
     * Builds the pipeline.
     *
     * @throws io.winproxy.dsr.DsrConfigurationException when {@code --enable-dsr} cannot be honoured
     */
    public static ProxyPipeline build(Inputs inputs) {
        return new ProxyPipeline(inputs);
    }

    public VfpPolicyEngine engine() {
        return engine;
    }

    public HnsDataplane dataplane() {
        return dataplane;
    }

    /** What the agent watches, and what {@link ClusterObjects#selected} keeps. */
    public WatchOptions watchOptions() {
        return watch;
    }

    public NodeFacts node() {
        return inputs.node();
    }

    /**
     * Once, read-only: feeds cluster objects (as {@link ClusterObjects#selected} by {@link #watchOptions()}, then
     * mapped) to the engine (this node's Node, every Service and
     * EndpointSlice), observes the host, computes the desired state and plans against what the journal owns.
     *
     * @throws io.winproxy.agent.dataplane.HnsNetworkNotFoundException when the network does not exist
     * @throws io.winproxy.agent.sync.NodeIpUnknownException            when this node's IP is unknown
     */
    public Evaluation evaluate(ClusterObjects.Mapped cluster) {
        cluster.nodes().stream().filter(n -> n.name().equals(inputs.node().nodeName())).findFirst()
                .ifPresent(engine::onNode);
        cluster.services().forEach(s -> engine.onService(null, s));
        cluster.endpointSlices().forEach(s -> engine.onEndpointSlice(null, s));
        ObservedState observed = dataplane.observe();
        HostComputeNetwork network = dataplane.network().orElseThrow();
        PolicySnapshot snapshot = engine.compute(new HostView(network, dataplane.endpoints()));
        Plan plan = engine.plan(snapshot.desired(), observed, inputs.journal().ownership(),
                dataplane.modifySupported());
        return new Evaluation(snapshot, observed, plan, engine.lastNodeNetwork(), engine.state());
    }
}
