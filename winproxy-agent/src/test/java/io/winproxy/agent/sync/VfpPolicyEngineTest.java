package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VfpPolicyEngineTest {
    private static final HostView HOST = new HostView(
            new HostComputeNetwork("net-1", "cbr0", "L2Bridge", List.of(), List.of(), 0, null),
            List.of(new HostComputeEndpoint("ep-1", "pod", "net-1", List.of(),
                    List.of(new IpConfiguration("10.244.1.5", 24)), "00-15-5d-00-00-01", 0, null),
                    new HostComputeEndpoint("ep-root", "cbr0", "net-1", List.of(),
                            List.of(new IpConfiguration("10.244.1.1", 24)), "00-15-5d-00-00-02", 0, null)));

    private static final NodeInfo THIS_NODE = new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24"),
            List.of("192.168.1.11"), "zone-1", false, List.of());

    private final VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(),
            List.of()), NodeNetworkFactory.withoutHostMac("win-a", "10.0.0.99", "cbr0", ""), AgentMetrics.NOOP,
            Instant.EPOCH);

    private static ServiceInfo local(String name, String itp, String etp, String type, int nodePort, int hcnp) {
        return new ServiceInfo("default", name, type, List.of("10.96.0.80"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", nodePort)), List.of(), List.of(),
                "None", 0, itp, etp, hcnp, null, null);
    }

    private static EndpointSliceInfo slice(String service, String node) {
        return new EndpointSliceInfo("default", service + "-1", service, "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)),
                List.of(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.2.6"), true, null, null, node, null,
                        null, null)), null);
    }

    @Test
    void theNodeNetworkComesFromHnsTheNodeAndTheFlags() {
        engine.onNode(THIS_NODE);
        engine.compute(HOST);
        var node = engine.lastNodeNetwork();
        assertThat(node.networkType()).isEqualTo(NetworkType.L2BRIDGE);
        assertThat(node.localEndpointIps()).containsExactly("10.244.1.5");
        assertThat(node.rootEndpointIps()).containsExactly("10.244.1.1");
        assertThat(node.zone()).isEqualTo("zone-1");
        assertThat(node.nodeIps()).containsValue("192.168.1.11");
        assertThat(node.effectiveSourceVip()).as("l2bridge ignores --source-vip").isEmpty();
    }

    @Test
    void servicePortsWithALocalPolicyAndNoLocalEndpointAreCounted() {
        engine.onNode(THIS_NODE);
        engine.onService(null, local("itp", "Local", null, "ClusterIP", 0, 0));
        engine.onEndpointSlice(null, slice("itp", "win-b"));
        engine.onService(null, local("etp", null, "Local", "LoadBalancer", 30080, 30999));
        engine.onEndpointSlice(null, slice("etp", "win-b"));

        PolicySnapshot snapshot = engine.compute(HOST);

        assertThat(snapshot.noLocalInternal()).isEqualTo(1);
        assertThat(snapshot.noLocalExternal()).isEqualTo(1);
        assertThat(snapshot.healthCheckNodePorts()).containsEntry("default/etp", 30999);
    }

    @Test
    void changesAreReportedPendingUntilComputeAppliesThem() {
        engine.onNode(THIS_NODE);
        assertThat(engine.onService(null, local("a", null, null, "ClusterIP", 0, 0))).isTrue();
        engine.compute(HOST);
        assertThat(engine.onService(local("a", null, null, "ClusterIP", 0, 0),
                local("a", null, null, "ClusterIP", 0, 0))).as("a no-op update").isFalse();
    }

    @Test
    void withoutANodeIpTheEngineRefusesToComputeRatherThanDesireNothing() {
        engine.onService(null, local("a", null, null, "ClusterIP", 0, 0));
        assertThatThrownBy(() -> engine.compute(HOST)).isInstanceOf(NodeIpUnknownException.class)
                .hasMessageContaining("win-a");
    }

    private static VfpPolicyEngine engine(boolean hnsDualStack) {
        return new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "10.0.0.99", "cbr0", ""), AgentMetrics.NOOP,
                Instant.EPOCH, hnsDualStack);
    }

    private static NodeNetwork network(NetworkType type, String... nodeIps) {
        NodeNetwork.Builder b = NodeNetwork.builder(type, "win-a").networkName("cbr0");
        for (String ip : nodeIps) {
            b.nodeIp(ip);
        }
        return b.build();
    }

    @Test
    void theNodeIsDualStackOnlyWithHnsSupportANonOverlayNetworkAndAnIpv6NodeAddress() {
        List<IpFamily> both = List.of(IpFamily.IPV4, IpFamily.IPV6);
        List<IpFamily> ipv4 = List.of(IpFamily.IPV4);
        assertThat(engine(true).families(network(NetworkType.L2BRIDGE, "192.168.1.11", "fd00::11"))).isEqualTo(both);
        assertThat(engine(true).families(network(NetworkType.L2BRIDGE, "fd00::11"))).isEqualTo(both);
        assertThat(engine(true).families(network(NetworkType.L2BRIDGE, "192.168.1.11"))).isEqualTo(ipv4);
        assertThat(engine(true).families(network(NetworkType.OVERLAY, "192.168.1.11", "fd00::11"))).isEqualTo(ipv4);
        assertThat(engine(false).families(network(NetworkType.L2BRIDGE, "192.168.1.11", "fd00::11")))
                .isEqualTo(ipv4);
    }

    @Test
    void aSingleStackSnapshotCarriesItsCountsUnderIpv4Only() {
        engine.onNode(THIS_NODE);
        engine.onService(null, local("itp", "Local", null, "ClusterIP", 0, 0));

        PolicySnapshot snapshot = engine.compute(HOST);

        assertThat(snapshot.families()).containsExactly(IpFamily.IPV4);
        assertThat(snapshot.dualStack()).isFalse();
        assertThat(snapshot.noLocalByFamily())
                .containsExactly(Map.entry(IpFamily.IPV4, new PolicySnapshot.NoLocalEndpoints(1, 0)));
    }

    @Test
    void theNoLocalCountsFollowEachChangeAsAFreshEngineCountsThem() {
        engine.onNode(THIS_NODE);
        ServiceInfo itp = local("itp", "Local", null, "ClusterIP", 0, 0);
        ServiceInfo etp = local("etp", null, "Local", "LoadBalancer", 30080, 30999);
        engine.onService(null, itp);
        engine.onEndpointSlice(null, slice("itp", "win-b"));
        engine.onService(null, etp);
        engine.onEndpointSlice(null, slice("etp", "win-b"));
        assertThat(counts(engine.compute(HOST))).containsExactly(1, 1);

        engine.onEndpointSlice(slice("itp", "win-b"), slice("itp", "win-a"));
        assertThat(counts(engine.compute(HOST))).as("itp got a local endpoint").containsExactly(0, 1);

        engine.onService(etp, null);
        assertThat(counts(engine.compute(HOST))).as("etp is gone").containsExactly(0, 0);

        ServiceInfo itpCluster = local("itp", null, null, "ClusterIP", 0, 0);
        engine.onService(itp, itpCluster);
        engine.onEndpointSlice(slice("itp", "win-a"), slice("itp", "win-b"));
        engine.onService(null, local("etp2", null, "Local", "NodePort", 30081, 0));
        PolicySnapshot incremental = engine.compute(HOST);

        VfpPolicyEngine fresh = engine(false);
        fresh.onNode(THIS_NODE);
        fresh.onService(null, itpCluster);
        fresh.onEndpointSlice(null, slice("itp", "win-b"));
        fresh.onService(null, local("etp2", null, "Local", "NodePort", 30081, 0));
        assertThat(counts(incremental)).containsExactly(0, 1).isEqualTo(counts(fresh.compute(HOST)));
    }

    private static List<Integer> counts(PolicySnapshot snapshot) {
        assertThat(snapshot.noLocalByFamily()).containsExactly(Map.entry(IpFamily.IPV4,
                new PolicySnapshot.NoLocalEndpoints(snapshot.noLocalInternal(), snapshot.noLocalExternal())));
        return List.of(snapshot.noLocalInternal(), snapshot.noLocalExternal());
    }
}
