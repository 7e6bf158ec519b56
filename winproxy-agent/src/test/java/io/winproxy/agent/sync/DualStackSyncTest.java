package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.health.HealthJson;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.PrometheusAgentMetrics;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.net.IpAddresses;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Dual-stack health and metrics: the sync loop with the real policy and dataplane over the HNS emulator, on an
 * l2bridge network, with a node that has an IPv4 and an IPv6 InternalIP.
 */
class DualStackSyncTest {
    private static final NodeInfo DUAL_NODE = node("192.168.1.11", "fd00:192:168:1::11");
    private static final NodeInfo IPV4_NODE = node("192.168.1.11");

    private final ManualScheduler scheduler = new ManualScheduler();
    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final ProxyHealthServer health = new ProxyHealthServer(null,
            new ProxierHealth(Duration.ofSeconds(60), Clock.systemUTC()), false, "win-a",
            new FamilyRecordingMetrics(), (kind, ns, name, type, reason, message) -> { }, Duration.ofSeconds(1));
    private FamilyRecordingMetrics metrics;
    private ProxySyncLoop loop;

    private static NodeInfo node(String... internalIps) {
        return new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24", "fd00:244:1::/64"), List.of(internalIps),
                null, false, List.of());
    }

    /** Starts a loop on an l2bridge host, HNS dual-stack capable or not, and feeds it {@code node}. */
    private void start(boolean hnsDualStack, NodeInfo node, io.winproxy.agent.metrics.AgentMetrics agentMetrics) {
        start(hnsDualStack, node, agentMetrics, "");
    }

    /** As above, with {@code nodeIpOverride} as {@code --bind-address} gives it ({@code NodeFacts.nodeIpOverride}). */
    private void start(boolean hnsDualStack, NodeInfo node, io.winproxy.agent.metrics.AgentMetrics agentMetrics,
                       String nodeIpOverride) {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(Set.of("10.244.1.5", "fd00:244:1::5"));
        EventRecorder recorder = (kind, ns, name, type, reason, message) -> { };
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults()
                .withHnsSupportsIpv6DualStack(hnsDualStack), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", nodeIpOverride), agentMetrics, Instant.EPOCH,
                hnsDualStack);
        loop = L2BridgeLoop.start(engine, hns, health, agentMetrics, recorder, scheduler, r -> { });
        loop.onNode(null, node);
        loop.onNodeSynced();
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        scheduler.advanceMillis(0);
    }

    private void start(boolean hnsDualStack, NodeInfo node) {
        metrics = new FamilyRecordingMetrics();
        start(hnsDualStack, node, metrics);
    }

    private void sync() {
        scheduler.advanceMillis(1000);
    }

    private static ServiceInfo service(String name, List<String> clusterIps, List<String> families, String itp) {
        return new ServiceInfo("default", name, "ClusterIP", clusterIps, families,
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(),
                "None", 0, itp, null, 0, null, null);
    }

    private static ServiceInfo dualService(String name, String itp) {
        return service(name, List.of("10.96.0.80", "fd00:96::80"), List.of("IPv4", "IPv6"), itp);
    }

    private static EndpointSliceInfo slice(String service, String addressType, String ip, String node,
                                           Instant trigger) {
        return new EndpointSliceInfo("default", service + "-" + addressType, service, addressType,
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)),
                List.of(new EndpointSliceInfo.SliceEndpoint(List.of(ip), true, null, null, node, null, null, null)),
                trigger);
    }

    private Set<IpFamily> reportedFamilies() {
        return health.health().health().status().keySet();
    }

    @Test
    void aDualStackNodeReportsBothFamiliesInTheHealthBody() {
        start(true, DUAL_NODE);

        ProxyHealth now = health.health().health();
        assertThat(now.status()).containsOnlyKeys(IpFamily.IPV4, IpFamily.IPV6);
        assertThat(now.healthy()).isTrue();
        assertThat(HealthJson.proxyHealth(now, now.currentTime(), true, ZoneOffset.UTC))
                .contains("\"status\":{\"IPv4\":{\"lastUpdated\":").contains("},\"IPv6\":{\"lastUpdated\":");
        assertThat(metrics.syncTimestamps).containsOnlyKeys(IpFamily.IPV4, IpFamily.IPV6);
        assertThat(metrics.syncDurations).containsOnlyKeys(IpFamily.IPV4, IpFamily.IPV6);
        assertThat(metrics.queuedTimestamps).containsOnlyKeys(IpFamily.IPV4, IpFamily.IPV6);
    }

    /**
     * Upstream's node-IP detection: {@code --bind-address} overrides the node IP of its own family only (RKE2 passes
     * the node's IPv4 address), so a Node with an IPv6 InternalIP still makes the node dual-stack.
     */
    @Test
    void anIpv4BindAddressOnANodeWithAnIpv6InternalIpStillRunsBothFamilies() {
        syncADualStackServiceWithAnIpv4BindAddress(DUAL_NODE);

        assertThat(reportedFamilies()).containsExactly(IpFamily.IPV4, IpFamily.IPV6);
        // HNS may write an IPv6 address out in full: compared canonically
        assertThat(hns.listLoadBalancers())
                .extracting(lb -> IpAddresses.canonical(lb.frontendVips().get(0)).orElseThrow())
                .containsExactlyInAnyOrder("10.96.0.80", "fd00:96::80");
    }

    @Test
    void anIpv4BindAddressOnAnIpv4NodeStaysSingleStack() {
        syncADualStackServiceWithAnIpv4BindAddress(IPV4_NODE);

        assertThat(reportedFamilies()).containsExactly(IpFamily.IPV4);
        assertThat(hns.listLoadBalancers()).extracting(lb -> lb.frontendVips().get(0))
                .containsExactly("10.96.0.80");
    }

    /** A loop on a dual-stack capable HNS with {@code --bind-address=192.168.1.11}; syncs a dual-stack Service. */
    private void syncADualStackServiceWithAnIpv4BindAddress(NodeInfo node) {
        metrics = new FamilyRecordingMetrics();
        start(true, node, metrics, "192.168.1.11");
        loop.onService(null, dualService("web", "Cluster"));
        loop.onEndpointSlice(null, slice("web", "IPv4", "10.244.1.5", "win-a", Instant.EPOCH));
        loop.onEndpointSlice(null, slice("web", "IPv6", "fd00:244:1::5", "win-a", Instant.EPOCH));
        sync();
    }

    @Test
    void withoutHnsDualStackSupportOnlyIpv4IsReportedEvenOnANodeWithAnIpv6Address() {
        start(false, DUAL_NODE);

        assertThat(reportedFamilies()).containsExactly(IpFamily.IPV4);
        assertThat(metrics.syncTimestamps).containsOnlyKeys(IpFamily.IPV4);
        assertThat(metrics.noLocal).containsOnlyKeys(IpFamily.IPV4);
    }

    @Test
    void theIpv6FamilyAppearsWhenTheNodeGainsAnIpv6AddressAndGoesWhenItLosesIt() {
        start(true, IPV4_NODE);
        assertThat(reportedFamilies()).containsExactly(IpFamily.IPV4);

        loop.onNode(IPV4_NODE, DUAL_NODE);
        sync();
        assertThat(reportedFamilies()).containsExactly(IpFamily.IPV4, IpFamily.IPV6);

        loop.onNode(DUAL_NODE, IPV4_NODE);
        sync();
        assertThat(reportedFamilies()).as("a family the agent no longer runs cannot go stale")
                .containsExactly(IpFamily.IPV4);
        assertThat(health.health().health().healthy()).isTrue();
        assertThat(metrics.removed).containsExactly(IpFamily.IPV6);
        assertThat(metrics.syncTimestamps).containsOnlyKeys(IpFamily.IPV4);
    }

    @Test
    void aChangeQueuedForBothFamiliesKeepsBothPendingUntilASuccessfulSync() {
        start(true, DUAL_NODE);
        Instant firstUpdate = health.health().health().status().get(IpFamily.IPV6).lastUpdated();

        loop.onService(null, dualService("web", null));
        sync();

        assertThat(health.health().health().status().get(IpFamily.IPV6).lastUpdated())
                .isAfterOrEqualTo(firstUpdate);
        assertThat(metrics.syncDurations.get(IpFamily.IPV4)).hasSameSizeAs(metrics.syncDurations.get(IpFamily.IPV6));
    }

    @Test
    void noLocalEndpointPortsAreCountedPerFamilyAndADualStackServiceInBoth() {
        start(true, DUAL_NODE);
        // IPv4 only, no endpoint on this node: IPv4 internal.
        loop.onService(null, service("v4", List.of("10.96.0.81"), List.of("IPv4"), "Local"));
        loop.onEndpointSlice(null, slice("v4", "IPv4", "10.244.2.6", "win-b", null));
        // Dual-stack, a local IPv4 endpoint but no local IPv6 one: IPv6 internal only.
        loop.onService(null, dualService("half", "Local"));
        loop.onEndpointSlice(null, slice("half", "IPv4", "10.244.1.5", "win-a", null));
        loop.onEndpointSlice(null, slice("half", "IPv6", "fd00:244:2::6", "win-b", null));
        // Dual-stack without any local endpoint: counted in both families.
        loop.onService(null, dualService("none", "Local"));
        // IPv6 only with a local endpoint: not counted.
        loop.onService(null, service("v6", List.of("fd00:96::82"), List.of("IPv6"), "Local"));
        loop.onEndpointSlice(null, slice("v6", "IPv6", "fd00:244:1::5", "win-a", null));
        sync();

        assertThat(metrics.noLocal).containsEntry(IpFamily.IPV4, List.of(2, 0))
                .containsEntry(IpFamily.IPV6, List.of(2, 0));
    }

    @Test
    void singleStackCountsEveryServicePortOnceUnderIpv4AsBefore() {
        start(false, DUAL_NODE);
        loop.onService(null, service("v4", List.of("10.96.0.81"), List.of("IPv4"), "Local"));
        loop.onService(null, dualService("half", "Local"));
        loop.onEndpointSlice(null, slice("half", "IPv4", "10.244.1.5", "win-a", null));
        loop.onService(null, dualService("none", "Local"));
        sync();

        assertThat(metrics.noLocal).containsOnlyKeys(IpFamily.IPV4).containsEntry(IpFamily.IPV4, List.of(2, 0));
    }

    @Test
    void programmingLatencyIsObservedUnderTheFamiliesOfTheChangedService() {
        start(true, DUAL_NODE);
        Instant trigger = Instant.now().minusSeconds(2);
        loop.onService(null, service("v6", List.of("fd00:96::82"), List.of("IPv6"), null));
        loop.onEndpointSlice(null, slice("v6", "IPv6", "fd00:244:1::5", "win-a", trigger));
        sync();
        assertThat(metrics.latencyCount(IpFamily.IPV4)).isZero();
        assertThat(metrics.latencyCount(IpFamily.IPV6)).isEqualTo(1);
        assertThat(metrics.latencies.get(IpFamily.IPV6).get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));

        loop.onService(null, dualService("web", null));
        loop.onEndpointSlice(null, slice("web", "IPv4", "10.244.1.5", "win-a", trigger.plusMillis(1)));
        sync();
        assertThat(metrics.latencyCount(IpFamily.IPV4)).as("a dual-stack service's change counts in both")
                .isEqualTo(1);
        assertThat(metrics.latencyCount(IpFamily.IPV6)).isEqualTo(2);
    }

    @Test
    void singleStackObservesEveryLatencyUnderIpv4() {
        start(false, DUAL_NODE);
        loop.onService(null, service("v6", List.of("fd00:96::82"), List.of("IPv6"), null));
        loop.onEndpointSlice(null, slice("v6", "IPv6", "fd00:244:1::5", "win-a", Instant.now().minusSeconds(1)));
        sync();

        assertThat(metrics.latencies).containsOnlyKeys(IpFamily.IPV4);
        assertThat(metrics.latencyCount(IpFamily.IPV4)).isEqualTo(1);
    }

    @Test
    void prometheusExposesTheIpv6SeriesOfADualStackNode() throws IOException {
        PrometheusAgentMetrics prometheus = new PrometheusAgentMetrics();
        start(true, DUAL_NODE, prometheus);
        loop.onService(null, dualService("none", "Local"));
        sync();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        prometheus.write(out);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv6\"}")
                .contains("kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family=\"IPv6\"}")
                .contains("kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\","
                        + "traffic_policy=\"internal\"} 1.0")
                .contains("kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv6\","
                        + "traffic_policy=\"internal\"} 1.0");
    }
}
