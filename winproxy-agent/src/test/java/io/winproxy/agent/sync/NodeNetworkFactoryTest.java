package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The node network the policy sees: the overlay source VIP taken from the CNI's endpoint when not configured; the node
 * IP of each family from {@code --bind-address} when it names one, else from the Node.
 */
class NodeNetworkFactoryTest {
    private static final NodeInfo NODE = new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24"),
            List.of("192.168.1.11"), "", false, List.of());

    private final HnsEmulator hns = HnsEmulator.inMemory();

    private HostView host(EmulatedHost.NetworkType type, String... endpointNames) {
        EmulatedHost host = new EmulatedHost(hns, type, "Calico", "win-a");
        HostComputeNetwork network = host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24",
                "192.168.1.11")));
        int last = 2;
        for (String name : endpointNames) {
            hns.createEndpoint(network.id(), HostComputeEndpoint.local(network.id(), name, "10.244.1." + last++, 32,
                    null));
        }
        return new HostView(network, hns.listEndpoints(network.id()));
    }

    private static NodeNetworkFactory factory(String sourceVip) {
        return NodeNetworkFactory.withoutHostMac("win-a", sourceVip, "", "");
    }

    @Test
    void onOverlayWithoutASourceVipTheCnisEndpointNamedAfterTheNetworkGivesIt() {
        assertThat(factory("").build(host(EmulatedHost.NetworkType.OVERLAY, "Calico_ep"), NODE).sourceVip())
                .isEqualTo("10.244.1.2");
    }

    @Test
    void openShiftsVipEndpointGivesItToo() {
        assertThat(factory("").build(host(EmulatedHost.NetworkType.OVERLAY, "pod-x", "VIPEndpoint"), NODE)
                .sourceVip()).isEqualTo("10.244.1.3");
    }

    @Test
    void aConfiguredSourceVipWinsAndTwoCandidatesGiveNone() {
        assertThat(factory("10.244.1.9").build(host(EmulatedHost.NetworkType.OVERLAY, "Calico_ep"), NODE)
                .sourceVip()).isEqualTo("10.244.1.9");
        assertThat(factory("").build(host(EmulatedHost.NetworkType.OVERLAY, "Calico_ep", "VIPEndpoint"), NODE)
                .sourceVip()).isEmpty();
    }

    @Test
    void eachFamilysNodeIpComesFromTheBindAddressWhenItNamesOneElseFromTheNode() {
        NodeInfo dual = new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24"),
                List.of("192.168.1.11", "fd00:192:168:1::11"), "", false, List.of());
        HostView l2bridge = host(EmulatedHost.NetworkType.L2BRIDGE);

        NodeNetwork ipv4Bind = nodeIps("10.0.0.5").build(l2bridge, dual);
        assertThat(ipv4Bind.nodeIp(IpFamily.IPV4)).isEqualTo("10.0.0.5");
        assertThat(ipv4Bind.nodeIp(IpFamily.IPV6)).as("the Node's, as upstream").isEqualTo("fd00:192:168:1::11");

        NodeNetwork pair = nodeIps("10.0.0.5,fd00::5").build(l2bridge, dual);
        assertThat(pair.nodeIp(IpFamily.IPV4)).isEqualTo("10.0.0.5");
        assertThat(pair.nodeIp(IpFamily.IPV6)).isEqualTo("fd00::5");

        NodeNetwork ipv6Bind = nodeIps("fd00::5").build(l2bridge, NODE);
        assertThat(ipv6Bind.nodeIp(IpFamily.IPV6)).isEqualTo("fd00::5");
        assertThat(ipv6Bind.nodeIp(IpFamily.IPV4)).isEqualTo("192.168.1.11");

        NodeNetwork none = nodeIps("").build(l2bridge, dual);
        assertThat(none.nodeIp(IpFamily.IPV4)).isEqualTo("192.168.1.11");
        assertThat(none.nodeIp(IpFamily.IPV6)).isEqualTo("fd00:192:168:1::11");
    }

    @Test
    void theHostMacIsLookedUpForTheBindAddressFirstThenForTheNodesFirstIp() {
        List<String> asked = new ArrayList<>();
        NodeNetworkFactory factory = new NodeNetworkFactory("win-a", "", "", "10.0.0.5,fd00::5", ip -> {
            asked.add(ip);
            return "00-15-5d-00-00-01";
        });
        factory.build(host(EmulatedHost.NetworkType.OVERLAY), NODE);
        new NodeNetworkFactory("win-a", "", "", "", ip -> {
            asked.add(ip);
            return "";
        }).build(host(EmulatedHost.NetworkType.OVERLAY), NODE);

        assertThat(asked).containsExactly("10.0.0.5", "192.168.1.11");
    }

    private static NodeNetworkFactory nodeIps(String override) {
        return NodeNetworkFactory.withoutHostMac("win-a", "", "", override);
    }

    @Test
    void l2bridgeHasNoSourceVip() {
        assertThat(NodeNetworkFactory.cniSourceVip(host(EmulatedHost.NetworkType.L2BRIDGE, "Calico_ep").network(),
                List.of())).isEmpty();
    }
}
