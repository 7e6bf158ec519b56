package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.RemoteSubnetRoute;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The CNI / host simulation builds networks from nodes and manages local endpoints. */
class EmulatedHostTest {
    private final HnsEmulator hns = HnsEmulator.builder().seed(1).echo(EchoProfile.VERBATIM).build();

    @Test
    void overlayNetworkHasThisNodesProviderAddressAndARemoteSubnetRoutePerOtherNode() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");

        HostComputeNetwork net = host.syncNetwork(EmulatorFixture.NODES);

        assertThat(net.name()).isEqualTo("winproxy-overlay");
        assertThat(net.isOverlay()).isTrue();
        assertThat(net.providerAddress()).contains("192.168.10.21");
        assertThat(net.drMacAddress()).contains("0E-2A-C0-A8-0A-15");
        assertThat(net.subnetPrefixes()).containsExactly("10.244.1.0/24");
        assertThat(net.remoteSubnetRoutes()).containsExactly(
                new RemoteSubnetRoute("10.244.2.0/24", 4096, "192.168.10.22", "0E-2A-C0-A8-0A-16"),
                new RemoteSubnetRoute("10.244.3.0/24", 4096, "192.168.10.23", "0E-2A-C0-A8-0A-17"));
        assertThat(hns.getNetworkByName("winproxy-overlay")).contains(net);
    }

    @Test
    void l2BridgeRoutesCarryNoProviderAddress() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, null, "node-b");

        HostComputeNetwork net = host.syncNetwork(EmulatorFixture.NODES);

        assertThat(net.name()).isEqualTo("cbr0");
        assertThat(net.isL2Bridge()).isTrue();
        assertThat(net.providerAddress()).contains("192.168.10.22");
        assertThat(net.remoteSubnetRoutes())
                .extracting(RemoteSubnetRoute::destinationPrefix, RemoteSubnetRoute::providerAddress)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("10.244.1.0/24", ""),
                        org.assertj.core.groups.Tuple.tuple("10.244.3.0/24", ""));
    }

    @Test
    void resyncingWithANewNodeUpdatesTheNetworkInPlace() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        HostComputeNetwork before = host.syncNetwork(EmulatorFixture.NODES.subList(0, 2));

        HostComputeNetwork after = host.syncNetwork(EmulatorFixture.NODES);

        assertThat(after.id()).isEqualTo(before.id());
        assertThat(after.remoteSubnetRoutes()).hasSize(2);
        assertThat(hns.listNetworks()).hasSize(1);
    }

    @Test
    void localEndpointsFollowThePodsOfThisNode() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        HostComputeNetwork net = host.syncNetwork(EmulatorFixture.NODES);
        HostComputeEndpoint hostEp = host.ensureHostEndpoint("10.244.1.2");

        host.syncLocalEndpoints(Set.of("10.244.1.5", "10.244.1.6"));
        List<HostComputeEndpoint> after = host.syncLocalEndpoints(Set.of("10.244.1.6", "10.244.1.7"));

        assertThat(after).extracting(e -> e.ipAddress().orElseThrow())
                .containsExactlyInAnyOrder("10.244.1.6", "10.244.1.7");
        assertThat(after).allSatisfy(e -> {
            assertThat(e.isRemote()).isFalse();
            assertThat(e.macAddress()).startsWith("00-15-5D-");
            assertThat(e.ipConfigurations().get(0).prefixLength()).isEqualTo(24);
        });
        assertThat(hns.listEndpoints(net.id())).extracting(HostComputeEndpoint::id).contains(hostEp.id());
        assertThat(host.ensureLocalEndpoint("10.244.1.6").id()).isEqualTo(after.stream()
                .filter(e -> e.ipAddresses().contains("10.244.1.6")).findFirst().orElseThrow().id());
    }

    @Test
    void aPodEndpointRemovedByTheCniDisappearsFromTheLoadBalancersThatUsedIt() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        host.syncNetwork(EmulatorFixture.NODES);
        HostComputeEndpoint a = host.ensureLocalEndpoint("10.244.1.5");
        HostComputeEndpoint b = host.ensureLocalEndpoint("10.244.1.6");
        HostComputeLoadBalancer lb = hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, a.id(),
                b.id()));

        assertThat(host.removeLocalEndpoint("10.244.1.5")).isTrue();

        assertThat(hns.getLoadBalancer(lb.id()).orElseThrow().hostComputeEndpoints()).containsExactly(b.id());
    }

    @Test
    void aLocalEndpointOutsideThePodSubnetIsRejectedWithInvalidIp() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        host.syncNetwork(EmulatorFixture.NODES);

        assertThatThrownBy(() -> host.ensureLocalEndpoint("10.244.2.5")).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_INVALID_IP));
    }

    @Test
    void anEndpointWithoutAddressGetsTheNextFreeOneFromTheSubnet() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, null, "node-a");
        HostComputeNetwork net = host.syncNetwork(EmulatorFixture.NODES);
        host.ensureLocalEndpoint("10.244.1.2");

        HostComputeEndpoint ep = hns.createEndpoint(net.id(), new HostComputeEndpoint(null, "x", null, null, null,
                null, 0, null));

        assertThat(ep.ipAddress()).contains("10.244.1.3");
    }

    @Test
    void aNetworkNameTakenByANetworkOfAnotherTypeFailsWithNetworkAlreadyExists() {
        new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "cbr0", "node-a").syncNetwork(EmulatorFixture.NODES);
        EmulatedHost bridge = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "node-a");

        assertThatThrownBy(() -> bridge.syncNetwork(EmulatorFixture.NODES)).isInstanceOfSatisfying(
                HnsException.class, e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_NETWORK_ALREADY_EXISTS));
    }

    @Test
    void deletingANetworkThatStillHasEndpointsFailsWithEntityHasReferences() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        host.syncNetwork(EmulatorFixture.NODES);
        host.ensureLocalEndpoint("10.244.1.5");

        assertThatThrownBy(host::deleteNetwork).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_ENTITY_HAS_REFERENCES));
        host.syncLocalEndpoints(Set.of());
        assertThat(host.deleteNetwork()).isTrue();
        assertThat(hns.listNetworks()).isEmpty();
    }

    @Test
    void networkTypesParseFromFlagValues() {
        assertThat(EmulatedHost.NetworkType.parse("Overlay")).isEqualTo(EmulatedHost.NetworkType.OVERLAY);
        assertThat(EmulatedHost.NetworkType.parse("l2bridge")).isEqualTo(EmulatedHost.NetworkType.L2BRIDGE);
        assertThatThrownBy(() -> EmulatedHost.NetworkType.parse("nat"))
                .hasMessage("emulated network type must be overlay or l2bridge, not 'nat'");
    }
}
